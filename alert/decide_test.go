package alert

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/replenish"
)

// figures computes real figures for a SKU selling 10 a day with a 7-day
// lead time: alert line 70, critical below 7 days of cover (70 available),
// slow moving above 90 days (900).
func figures(t *testing.T, available, incoming int64) replenish.Figures {
	t.Helper()
	demand := make([]int64, 30)
	for i := range demand {
		demand[i] = 10
	}
	f, err := replenish.Compute(replenish.Input{
		DemandDaily: demand, LeadTimeDays: 7, ServiceLevel: 0.95, ReviewDays: 1, CoverDays: 30,
		OrderMultiple: 1, SlowMovingDays: 90, Available: available, Incoming: incoming,
		ColdStart: replenish.ColdStart{Default: replenish.Estimate{MeanDaily: 1, StddevDaily: 1}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// books is the test's record of what Decide asked to write, as storage
// keeps it: one open alert, every resolved one, and the notices.
type books struct {
	open     *stockd.Alert
	resolved []stockd.Alert
	notices  []stockd.AlertNotice
	nextID   int64
}

func (b *books) apply(d Decision) []string {
	if d.Resolve != nil {
		b.resolved = append(b.resolved, *d.Resolve)
		b.open = nil
	}
	if d.Save != nil {
		a := *d.Save
		if a.ID == 0 {
			b.nextID++
			a.ID = b.nextID
		}
		if a.Status == stockd.AlertOpen {
			b.open = &a
		}
	}
	var said []string
	for _, n := range d.Notices {
		b.notices = append(b.notices, n)
		said = append(said, fmt.Sprintf("%s %s/%d", n.Kind, n.Level, n.Tier))
	}
	return said
}

func (b *books) today(date string) []stockd.AlertNotice {
	var out []stockd.AlertNotice
	for _, n := range b.notices {
		if n.BusinessDate == date {
			out = append(out, n)
		}
	}
	return out
}

// step is one moment of a scenario: an evaluation (available, incoming), a
// tick (escalation only) or an acknowledgement, at hours from the start.
type step struct {
	hours     float64
	do        string // "eval", "tick", "ack"
	available int64
	incoming  int64
	// want: what was said ("sent warning/0", ...), and the open alert
	// after it as "level/tier", or "" when none is open.
	said []string
	open string
}

func eval(h float64, available, incoming int64, open string, said ...string) step {
	return step{hours: h, do: "eval", available: available, incoming: incoming, open: open, said: said}
}
func tick(h float64, open string, said ...string) step {
	return step{hours: h, do: "tick", open: open, said: said}
}
func ack(h float64, open string) step { return step{hours: h, do: "ack", open: open} }

func TestDecide(t *testing.T) {
	start := time.Date(2026, 12, 4, 1, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		policy  Policy
		steps   []step
		resolve []string // resolutions of the episodes that ended, in order
	}{
		{"ok raises nothing", Policy{}, []step{eval(0, 500, 0, "")}, nil},
		{"dedup: one sent per SKU, level, business date", Policy{}, []step{
			eval(0, 70, 0, "warning/0", "sent warning/0"),
			eval(1, 70, 0, "warning/0"), // repeated: nothing new, nothing written
			eval(2, 65, 0, "critical/0", "sent critical/0"),
			eval(3, 70, 0, "warning/0"),                     // easing is not news
			eval(4, 500, 0, ""),                             // cleared
			eval(5, 70, 0, "warning/0"),                     // back the same day: said already
			eval(24, 500, 0, ""),                            // next day: cleared
			eval(25, 70, 0, "warning/0", "sent warning/0"),  // and news again
			eval(26, 0, 0, "stockout/0", "sent stockout/0"), // worse is news
			eval(27, 900, 0, ""),                            // 90 days of cover is not slow
			eval(28, 901, 0, "slow_moving/0", "sent slow_moving/0"),
		}, []string{"critical", "warning", "cleared", "cleared", "stockout", "cleared"}},
		{"warning unacknowledged 24 h becomes critical", Policy{}, []step{
			eval(0, 70, 0, "warning/0", "sent warning/0"),
			tick(23.9, "warning/0"),
			tick(24, "critical/0", "sent critical/0"),
			// The figures now say critical: the episode's next level was
			// announced by the escalation already.
			eval(25, 65, 0, "critical/0"),
		}, []string{"critical"}},
		{"critical unacknowledged 12 h goes to the next tier, up to the last", Policy{TierMax: 2}, []step{
			eval(0, 65, 0, "critical/0", "sent critical/0"),
			tick(11, "critical/0"),
			tick(12, "critical/1", "sent critical/1"),
			eval(13, 60, 0, "critical/1"), // same level: the tier stays
			tick(23.9, "critical/1"),
			tick(24, "critical/2", "sent critical/2"),
			tick(48, "critical/2"), // the last tier
		}, nil},
		{"one tier: red never escalates", Policy{}, []step{
			eval(0, 0, 0, "stockout/0", "sent stockout/0"),
			tick(36, "stockout/0"),
		}, nil},
		{"a long pause escalates one step at a time", Policy{TierMax: 3}, []step{
			eval(0, 70, 0, "warning/0", "sent warning/0"),
			tick(100, "critical/0", "sent critical/0"),
			tick(101, "critical/0"),
			tick(112, "critical/1", "sent critical/1"),
		}, nil},
		{"acknowledgement stops escalation", Policy{TierMax: 2}, []step{
			eval(0, 70, 0, "warning/0", "sent warning/0"),
			ack(1, "warning/0"),
			tick(48, "warning/0"),
			eval(49, 65, 0, "critical/0", "sent critical/0"), // a new condition asks again
			tick(61, "critical/1", "sent critical/1"),
			ack(62, "critical/1"),
			tick(100, "critical/1"),
		}, []string{"critical"}},
		{"an open purchase order suppresses; its receipt resumes", Policy{TierMax: 1}, []step{
			// 60 available is under 7 days of cover, but 50 are on order:
			// the digest hears of it, the sinks do not.
			eval(0, 60, 50, "critical/0", "digest critical/0"),
			eval(1, 55, 50, "critical/0"),
			tick(30, "critical/0"), // the order is someone acting: no escalation
			// Received: 105 available, nothing on order: cleared.
			eval(31, 105, 0, ""),
			// Sold down again: no order open, so the sinks hear of it.
			eval(32, 65, 0, "critical/0", "sent critical/0"),
		}, []string{"cleared"}},
		{"a purchase order closed unreceived announces what it held back", Policy{}, []step{
			eval(0, 60, 50, "critical/0", "digest critical/0"),
			eval(2, 60, 0, "critical/0", "sent critical/0"),
			eval(3, 60, 0, "critical/0"),
		}, nil},
		{"dedup holds across a suppressed and an announced notice of one day", Policy{}, []step{
			eval(0, 60, 50, "critical/0", "digest critical/0"),
			eval(1, 500, 0, ""),
			eval(2, 60, 50, "critical/0"), // digest said it today already
			eval(3, 60, 0, "critical/0", "sent critical/0"),
		}, []string{"cleared"}},
		{"suppression ending after the level was sent that day counts as said", Policy{}, []step{
			eval(0, 60, 0, "critical/0", "sent critical/0"),
			eval(1, 500, 0, ""),
			eval(2, 60, 50, "critical/0", "digest critical/0"),
			eval(3, 60, 0, "critical/0"),  // sent today already
			eval(27, 60, 0, "critical/0"), // and the episode goes on: nothing new
		}, []string{"cleared"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b books
			for i, s := range tt.steps {
				now := start.Add(time.Duration(s.hours * float64(time.Hour)))
				date := now.Format(time.DateOnly)
				var d Decision
				switch s.do {
				case "eval":
					d = Decide(tt.policy, b.open, Evaluation{SKU: "A", Figures: figures(t, s.available, s.incoming), At: now, BusinessDate: date, Today: b.today(date)})
				case "tick":
					if b.open != nil {
						d = Tick(tt.policy, *b.open, now, date, b.today(date))
					}
				case "ack":
					a, changed := b.open.Acknowledged("key_a", now)
					if !changed {
						t.Fatalf("step %d: ack changed nothing", i)
					}
					d = Decision{Save: &a}
				}
				said := b.apply(d)
				if !reflect.DeepEqual(said, s.said) {
					t.Errorf("step %d (%s at %gh): said %q, want %q", i, s.do, s.hours, said, s.said)
				}
				open := ""
				if b.open != nil {
					open = fmt.Sprintf("%s/%d", b.open.Level, b.open.Tier)
				}
				if open != s.open {
					t.Errorf("step %d (%s at %gh): open alert %q, want %q", i, s.do, s.hours, open, s.open)
				}
			}
			var resolutions []string
			for _, a := range b.resolved {
				resolutions = append(resolutions, a.Resolution)
			}
			if !reflect.DeepEqual(resolutions, tt.resolve) {
				t.Errorf("resolutions %q, want %q", resolutions, tt.resolve)
			}
		})
	}
}

// TestDecideIsIdempotent: the same evaluation twice writes once; a
// decision replayed over the state it produced changes nothing.
func TestDecideIsIdempotent(t *testing.T) {
	now := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	for _, available := range []int64{0, 60, 70, 500, 1000} {
		var b books
		e := Evaluation{SKU: "A", Figures: figures(t, available, 0), At: now, BusinessDate: "2026-12-04"}
		b.apply(Decide(Policy{}, nil, e))
		e.Today = b.today("2026-12-04")
		if d := Decide(Policy{}, b.open, e); !d.Empty() {
			t.Errorf("available %d: a repeated evaluation decided %+v, want nothing", available, d)
		}
	}
}

// TestHistory: an episode's steps say what happened, in order, with the
// acknowledging key.
func TestHistory(t *testing.T) {
	now := time.Date(2026, 12, 4, 9, 0, 0, 0, time.UTC)
	var b books
	b.apply(Decide(Policy{TierMax: 1}, nil, Evaluation{SKU: "A", Figures: figures(t, 70, 0), At: now, BusinessDate: "2026-12-04"}))
	b.apply(Tick(Policy{TierMax: 1}, *b.open, now.Add(24*time.Hour), "2026-12-05", nil))
	b.apply(Tick(Policy{TierMax: 1}, *b.open, now.Add(36*time.Hour), "2026-12-05", nil))
	a, _ := b.open.Acknowledged("key_ops", now.Add(37*time.Hour))
	b.apply(Decision{Save: &a})
	b.apply(Decide(Policy{TierMax: 1}, b.open, Evaluation{SKU: "A", Figures: figures(t, 500, 0), At: now.Add(40 * time.Hour), BusinessDate: "2026-12-05"}))
	var got []string
	for _, s := range b.resolved[0].History {
		got = append(got, strings.TrimSpace(fmt.Sprintf("%s %s/%d %s", s.Event, s.Level, s.Tier, s.KeyID)))
	}
	want := []string{"raised warning/0", "escalated critical/0", "escalated critical/1", "acknowledged critical/1 key_ops", "resolved critical/1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("history %q, want %q", got, want)
	}
	if r := b.resolved[0]; r.Resolution != "cleared" || r.AckedBy != "key_ops" || r.Condition != "warning" {
		t.Errorf("resolved alert %+v", r)
	}
}
