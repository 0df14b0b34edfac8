package replenish

import (
	"math"
	"testing"
)

func TestLevels(t *testing.T) {
	steady := make([]int64, 30) // 10 a day, σ 0
	for i := range steady {
		steady[i] = 10
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Input)
		level Level
	}{
		{"nothing available", func(in *Input) { in.Available = 0; in.Incoming = 1000 }, LevelStockout},
		{"at the red line", func(in *Input) { in.Available = 500; in.RedLine = 500 }, LevelCritical},
		{"less cover than the lead time", func(in *Input) { in.Available = 69; in.Incoming = 1000 }, LevelCritical},
		{"exactly the lead time in cover, at the reorder point", func(in *Input) { in.Available = 70 }, LevelWarning},
		{"position at the alert line", func(in *Input) { in.Available = 100; in.RedLine = 100 }, LevelCritical},
		{"position at the alert line, above the red line", func(in *Input) { in.Available = 100; in.RedLine = 99; in.LeadTimeDays = 10 }, LevelWarning},
		{"an open PO lifts the position", func(in *Input) { in.Available = 75; in.Incoming = 300 }, LevelOK},
		{"more cover than slow_moving_days", func(in *Input) { in.Available = 901 }, LevelSlowMoving},
		{"exactly slow_moving_days", func(in *Input) { in.Available = 900 }, LevelOK},
		{"stock with no demand", func(in *Input) { in.DemandDaily = make([]int64, 30); in.Available = 1 }, LevelSlowMoving},
	} {
		in := seedInput()
		in.DemandDaily = steady
		in.OrderMultiple = 1
		tc.edit(&in)
		f := mustCompute(t, in)
		if f.Level != tc.level {
			t.Errorf("%s: level %s (%s), want %s; figures %+v", tc.name, f.Level, f.LevelReason, tc.level, f)
		}
		if f.Level != LevelOK && f.LevelReason == "" {
			t.Errorf("%s: no reason given", tc.name)
		}
	}
}

func TestDaysOfCover(t *testing.T) {
	in := seedInput()
	if f := mustCompute(t, in); math.Abs(f.DaysOfCover-60/14.5) > 1e-12 {
		t.Errorf("cover %v", f.DaysOfCover)
	}
	in.Available = 0
	if f := mustCompute(t, in); f.DaysOfCover != 0 {
		t.Errorf("cover with nothing available %v", f.DaysOfCover)
	}
	in.Available = 5
	in.DemandDaily = make([]int64, 20)
	if f := mustCompute(t, in); !math.IsInf(f.DaysOfCover, 1) {
		t.Errorf("cover with no demand %v", f.DaysOfCover)
	}
}

func TestNoticeFor(t *testing.T) {
	for _, tc := range []struct {
		name       string
		previous   Level
		level      Level
		suppressed bool
		want       Notice
	}{
		{"first evaluation, ok", "", LevelOK, false, NoticeNone},
		{"entering warning", LevelOK, LevelWarning, false, NoticeSent},
		{"staying at warning", LevelWarning, LevelWarning, false, NoticeNone},
		{"warning to critical", LevelWarning, LevelCritical, false, NoticeSent},
		{"critical with an open PO covering it", LevelOK, LevelCritical, true, NoticeDigest},
		{"stockout with an open PO covering it", LevelCritical, LevelStockout, true, NoticeDigest},
		{"easing from critical to warning", LevelCritical, LevelWarning, false, NoticeNone},
		{"entering slow moving", LevelOK, LevelSlowMoving, false, NoticeSent},
		{"slow moving to warning", LevelSlowMoving, LevelWarning, false, NoticeSent},
		{"never evaluated, stockout", "", LevelStockout, false, NoticeSent},
	} {
		if got := NoticeFor(tc.previous, Figures{Level: tc.level, Suppressed: tc.suppressed}); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
