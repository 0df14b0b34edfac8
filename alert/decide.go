package alert

import (
	"math"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/replenish"
)

// Policy is the escalation policy. Zero fields mean the documented default.
type Policy struct {
	// WarningEscalateAfter is how long a warning may stay unacknowledged
	// before it is announced as critical. Defaults to 24 hours (seed 003
	// §4.3: "黄色超过 24 小时未处理自动升红").
	WarningEscalateAfter time.Duration
	// CriticalEscalateAfter is how long a red alert (critical or stockout)
	// may stay unacknowledged at one tier before it goes to the next.
	// Defaults to 12 hours ("红色超过 12 小时未确认升级到上一级").
	CriticalEscalateAfter time.Duration
	// TierMax is the last contact tier; escalation stops there. Defaults
	// to 0: one tier, so a red alert never escalates past it.
	TierMax int
}

const (
	warningEscalateAfterDefault  = 24 * time.Hour
	criticalEscalateAfterDefault = 12 * time.Hour
	// TierLimit bounds TierMax: a chain of contacts longer than this is a
	// configuration mistake, not an organisation.
	TierLimit = 9
)

func (p Policy) withDefaults() Policy {
	if p.WarningEscalateAfter <= 0 {
		p.WarningEscalateAfter = warningEscalateAfterDefault
	}
	if p.CriticalEscalateAfter <= 0 {
		p.CriticalEscalateAfter = criticalEscalateAfterDefault
	}
	p.TierMax = min(max(p.TierMax, 0), TierLimit)
	return p
}

// Evaluation is one evaluation of one SKU: its figures as of At, At's
// business date (in the deployment's business time zone), and the notices
// already recorded for the SKU on that date.
type Evaluation struct {
	SKU          string
	Figures      replenish.Figures
	At           time.Time
	BusinessDate string
	Today        []stockd.AlertNotice
}

// Decision is what storage must write (store.AlertWriteParams): an alert
// to resolve, one to save, notices to record. The zero Decision writes
// nothing.
type Decision struct {
	Resolve *stockd.Alert
	Save    *stockd.Alert
	Notices []stockd.AlertNotice
}

// Empty reports whether the decision writes nothing.
func (d Decision) Empty() bool { return d.Resolve == nil && d.Save == nil && len(d.Notices) == 0 }

// Decide is the alert logic, pure: given the SKU's open alert (nil when it
// has none) and a fresh evaluation, it opens, updates, escalates or
// resolves, and says which notices to record. The rules, in order:
//
//   - Episodes. An alert is one episode of the SKU at one condition level.
//     An ok evaluation resolves the open alert ("cleared"); a different
//     level resolves it (its resolution names the new level) and opens the
//     next episode. So the alert a person acknowledged is the condition
//     they saw: a SKU that goes from warning to stockout asks again.
//   - News. A new episode is announced as replenish.NoticeFor says: only
//     a level more severe than the one announced before it is news
//     (easing is the problem going away; it shows in the history).
//   - Suppression. While open purchase orders cover the suggestion
//     (Figures.Suppressed), news goes to the daily digest, not the sinks;
//     the alert stays unannounced, and the first evaluation after
//     suppression ends (the receipt, a cancelled order) announces it.
//   - Dedup. One sent notice per (SKU, level, tier, business date), and one
//     digest line: a notice already in e.Today is not recorded again, and
//     storage's key refuses a second one anyway.
//   - Escalation (escalate): only unacknowledged, unsuppressed alerts.
func Decide(p Policy, open *stockd.Alert, e Evaluation) Decision {
	p = p.withDefaults()
	level := e.Figures.Level
	at := e.At.UTC().Truncate(time.Microsecond)
	switch {
	case open == nil && level == replenish.LevelOK:
		return Decision{}
	case open == nil:
		return raise(nil, replenish.LevelOK, e, at)
	case level == replenish.LevelOK:
		return Decision{Resolve: resolved(*open, at, "cleared")}
	case string(level) != open.Condition:
		return raise(resolved(*open, at, string(level)), replenish.Level(open.Level), e, at)
	}
	a := *open
	a.Figures, a.Suppressed, a.EvaluatedAt = figuresOf(e.Figures), e.Figures.Suppressed, at
	d := advance(p, &a, e.Today, e.BusinessDate, at)
	if d.Empty() && sameFigures(a.Figures, open.Figures) && a.Suppressed == open.Suppressed && a.Announced == open.Announced {
		return Decision{} // nothing new: an evaluation repeated is no write
	}
	d.Save = &a
	return d
}

// Tick is escalation without a fresh evaluation: the worker's periodic
// pass over open alerts, with the figures they already hold.
func Tick(p Policy, open stockd.Alert, now time.Time, businessDate string, today []stockd.AlertNotice) Decision {
	p = p.withDefaults()
	a := open
	d := advance(p, &a, today, businessDate, now.UTC().Truncate(time.Microsecond))
	if d.Empty() && a.Level == open.Level && a.Tier == open.Tier && a.Announced == open.Announced {
		return Decision{}
	}
	d.Save = &a
	return d
}

// advance announces an alert held back by suppression once suppression ended,
// then escalates it if it is due.
func advance(p Policy, a *stockd.Alert, today []stockd.AlertNotice, date string, at time.Time) Decision {
	var d Decision
	if !a.Announced && !a.Suppressed {
		d.Notices = announce(a, replenish.NoticeSent, today, date, at)
	}
	if escalate(p, a, at) {
		kind := replenish.NoticeSent
		if a.Suppressed {
			kind = replenish.NoticeDigest
		}
		d.Notices = append(d.Notices, announce(a, kind, today, date, at)...)
	}
	return d
}

// escalate moves an unacknowledged alert one step up when it has waited
// long enough at its level and tier: a warning becomes critical after
// WarningEscalateAfter; a red alert (critical, stockout) reaches the next
// tier after CriticalEscalateAfter, up to TierMax. One step per call, so a
// worker back from a long pause does not fire a burst. A suppressed alert
// does not escalate: the open purchase order is someone acting on it.
func escalate(p Policy, a *stockd.Alert, at time.Time) bool {
	if a.AckedAt != nil || a.Suppressed || a.Status != stockd.AlertOpen {
		return false
	}
	waited := at.Sub(a.ChangedAt)
	switch {
	case a.Level == string(replenish.LevelWarning) && waited >= p.WarningEscalateAfter:
		a.Level = string(replenish.LevelCritical)
	case red(a.Level) && a.Tier < p.TierMax && waited >= p.CriticalEscalateAfter:
		a.Tier++
	default:
		return false
	}
	a.ChangedAt, a.Announced = at, false
	*a = a.Appended(stockd.AlertStep{At: at, Event: stockd.AlertEscalated, Level: a.Level, Tier: a.Tier})
	return true
}

func red(level string) bool {
	return level == string(replenish.LevelCritical) || level == string(replenish.LevelStockout)
}

// raise opens the episode of e's level; previous is the level announced
// before it (ok when the SKU had no alert).
func raise(resolve *stockd.Alert, previous replenish.Level, e Evaluation, at time.Time) Decision {
	a := stockd.Alert{
		SKU:       e.SKU,
		Condition: string(e.Figures.Level),
		Level:     string(e.Figures.Level),
		Status:    stockd.AlertOpen,
		Figures:   figuresOf(e.Figures),
		// Nothing to say counts as said: an easing episode is never pushed.
		Announced:   true,
		Suppressed:  e.Figures.Suppressed,
		OpenedAt:    at,
		ChangedAt:   at,
		EvaluatedAt: at,
	}
	a = a.Appended(stockd.AlertStep{At: at, Event: stockd.AlertRaised, Level: a.Level})
	d := Decision{Resolve: resolve, Save: &a}
	if notice := replenish.NoticeFor(previous, e.Figures); notice != replenish.NoticeNone {
		d.Notices = announce(&a, notice, e.Today, e.BusinessDate, at)
	}
	return d
}

// announce records the notice of a's current level and tier unless today
// has it already, and marks a announced when the notice is a push.
func announce(a *stockd.Alert, kind replenish.Notice, today []stockd.AlertNotice, date string, at time.Time) []stockd.AlertNotice {
	a.Announced = kind == replenish.NoticeSent
	n := stockd.AlertNotice{AlertID: a.ID, SKU: a.SKU, Level: a.Level, Tier: a.Tier, BusinessDate: date, Kind: string(kind), At: at}
	for _, t := range today {
		if t.SKU == n.SKU && t.Level == n.Level && t.Tier == n.Tier && t.Kind == n.Kind && t.BusinessDate == n.BusinessDate {
			return nil
		}
	}
	return []stockd.AlertNotice{n}
}

func resolved(a stockd.Alert, at time.Time, resolution string) *stockd.Alert {
	a.Status, a.ResolvedAt, a.Resolution = stockd.AlertResolved, &at, resolution
	a = a.Appended(stockd.AlertStep{At: at, Event: stockd.AlertResolvedStep, Level: a.Level, Tier: a.Tier})
	return &a
}

// figuresOf keeps what a person reads of the figures; an infinite cover
// (no demand) becomes nil, since JSON has no infinity.
func figuresOf(f replenish.Figures) stockd.AlertFigures {
	out := stockd.AlertFigures{
		InventoryPosition: f.InventoryPosition,
		SafetyStock:       f.SafetyStock,
		ReorderPoint:      f.ReorderPoint,
		AlertLine:         f.AlertLine,
		SuggestedQuantity: f.SuggestedQuantity,
		DemandMeanDaily:   f.Demand.MeanDaily,
		LeadTimeDays:      f.LeadTimeDays,
		Source:            string(f.Source),
		Reason:            f.LevelReason,
	}
	if !math.IsInf(f.DaysOfCover, 0) && !math.IsNaN(f.DaysOfCover) {
		cover := f.DaysOfCover
		out.DaysOfCover = &cover
	}
	return out
}

func sameFigures(a, b stockd.AlertFigures) bool {
	coverA, coverB := a.DaysOfCover, b.DaysOfCover
	a.DaysOfCover, b.DaysOfCover = nil, nil
	return a == b && (coverA == nil) == (coverB == nil) && (coverA == nil || *coverA == *coverB)
}
