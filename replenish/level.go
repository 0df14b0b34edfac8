package replenish

import "fmt"

// Level grades a SKU by how soon it runs out (seed 003 §4.3: by days of
// cover, not by units).
type Level string

const (
	LevelOK         Level = "ok"
	LevelSlowMoving Level = "slow_moving"
	LevelWarning    Level = "warning"
	LevelCritical   Level = "critical"
	LevelStockout   Level = "stockout"
)

// Severity orders levels for notification: a level is announced when it is
// more severe than the one before. The zero Level (never evaluated) counts
// as ok.
func (l Level) Severity() int {
	switch l {
	case LevelSlowMoving:
		return 1
	case LevelWarning:
		return 2
	case LevelCritical:
		return 3
	case LevelStockout:
		return 4
	default:
		return 0
	}
}

// levelOf is the level rule. The first condition that holds wins:
//
//  1. stockout: available ≤ 0.
//  2. critical: available ≤ red_line, or days of cover < lead_time_days.
//     An order placed now arrives after L days; with less cover than that,
//     the shelf empties first even if someone orders this minute, so a
//     person must expedite or transfer, not merely order. The comparison is
//     with L, not L + review_days: the review cadence says when the policy
//     looks again, but a critical alert is read now, and "now" is what it
//     must be true about.
//  3. warning: the inventory position is at or below the alert line, i.e.
//     it is time to order (and SuggestedQuantity says how much).
//  4. slow_moving: days of cover > slow_moving_days, including stock that
//     sits with no demand at all over the window (cover +Inf): money held
//     in stock that will not sell in that time (seed 003 §4.3, "反向预警").
//  5. ok.
func levelOf(in Input, f Figures) (Level, string) {
	switch {
	case in.Available <= 0:
		return LevelStockout, "nothing available"
	case in.Available <= in.RedLine:
		return LevelCritical, fmt.Sprintf("available %d ≤ red line %d", in.Available, in.RedLine)
	case f.DaysOfCover < in.LeadTimeDays:
		return LevelCritical, fmt.Sprintf("%.1f days of cover < lead time %g days: an order placed now arrives after the stock runs out", f.DaysOfCover, in.LeadTimeDays)
	case f.InventoryPosition <= f.AlertLine:
		return LevelWarning, fmt.Sprintf("inventory position %d ≤ alert line %d", f.InventoryPosition, f.AlertLine)
	case f.DaysOfCover > float64(in.SlowMovingDays):
		return LevelSlowMoving, fmt.Sprintf("%.0f days of cover > %d", f.DaysOfCover, in.SlowMovingDays)
	default:
		return LevelOK, ""
	}
}

// Notice is what an evaluation tells people.
type Notice string

const (
	// NoticeNone: nothing new to say.
	NoticeNone Notice = ""
	// NoticeSent: pushed to the sinks now.
	NoticeSent Notice = "sent"
	// NoticeDigest: listed in the daily digest only, because open purchase
	// orders already cover the suggestion (suppression, seed 003 §4.3).
	NoticeDigest Notice = "digest"
)

// NoticeFor decides the notice of an evaluation, given the level the SKU
// was at before it. Only entering a more severe level is news: staying at a
// level repeats what was said, and moving to a less severe one is the
// problem easing (it shows in the alert's level history, not as a push).
// Dedup per (SKU, level, business date) is the caller's, who keeps the
// record of what was sent.
func NoticeFor(previous Level, f Figures) Notice {
	if f.Level.Severity() <= previous.Severity() {
		return NoticeNone
	}
	if f.Suppressed {
		return NoticeDigest
	}
	return NoticeSent
}
