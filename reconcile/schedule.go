package reconcile

import (
	"context"
	"fmt"
	"time"
)

// Schedule is how often each pass runs; zero switches a pass off.
type Schedule struct {
	Minute, Hour, Day time.Duration
}

// Schedule bounds, so that a typo neither hammers the database nor
// silences a pass for a year.
const (
	MinuteIntervalMin = time.Second
	MinuteIntervalMax = time.Hour
	HourIntervalMin   = time.Minute
	HourIntervalMax   = 24 * time.Hour
	DayIntervalMin    = time.Hour
	DayIntervalMax    = 7 * 24 * time.Hour
)

// DefaultSchedule is each pass at the interval it is named after.
var DefaultSchedule = Schedule{Minute: time.Minute, Hour: time.Hour, Day: 24 * time.Hour}

// Check refuses an interval outside its bounds (zero is off, and allowed).
func (s Schedule) Check() error {
	for _, c := range []struct {
		name     string
		every    time.Duration
		min, max time.Duration
	}{
		{"minute", s.Minute, MinuteIntervalMin, MinuteIntervalMax},
		{"hour", s.Hour, HourIntervalMin, HourIntervalMax},
		{"day", s.Day, DayIntervalMin, DayIntervalMax},
	} {
		if c.every != 0 && (c.every < c.min || c.every > c.max) {
			return fmt.Errorf("%s pass every %s: want 0 (off) or from %s to %s", c.name, c.every, c.min, c.max)
		}
	}
	return nil
}

// Run runs each pass on its schedule until ctx ends. A failed pass is
// logged and tried again at its next tick; passes never overlap.
func (r *Reconciler) Run(ctx context.Context, s Schedule) {
	if err := r.RefreshMetrics(ctx); err != nil {
		r.cfg.Logger.Warn("reading open discrepancies failed", "err", err)
	}
	minute, stopMinute := tick(s.Minute)
	defer stopMinute()
	hour, stopHour := tick(s.Hour)
	defer stopHour()
	day, stopDay := tick(s.Day)
	defer stopDay()
	for {
		var pass string
		select {
		case <-ctx.Done():
			return
		case <-minute:
			pass = "minute"
		case <-hour:
			pass = "hour"
		case <-day:
			pass = "day"
		}
		if _, err := r.Pass(ctx, pass); err != nil && ctx.Err() == nil {
			r.cfg.Logger.Error("reconciliation pass failed", "pass", pass, "err", err)
		}
	}
}

// tick returns a ticker's channel, or nil (never ready) when every is zero.
func tick(every time.Duration) (<-chan time.Time, func()) {
	if every <= 0 {
		return nil, func() {}
	}
	t := time.NewTicker(every)
	return t.C, t.Stop
}
