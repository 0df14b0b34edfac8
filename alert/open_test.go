package alert_test

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd/alert"
)

// countingStore answers AlertOpenCounts with counts (or err) and counts
// the reads.
type countingStore struct {
	counts map[string]int64
	err    error
	reads  int
}

func (s *countingStore) AlertOpenCounts(context.Context) (map[string]int64, error) {
	s.reads++
	return s.counts, s.err
}

// openGauges scrapes reg for stockd_alerts_open by level.
func openGauges(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "stockd_alerts_open" {
			continue
		}
		for _, m := range f.GetMetric() {
			got[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
		}
	}
	return got
}

// TestOpenCollector: every level from the first scrape, an unknown level
// under other, one read of the store per ReadEvery however often it is
// scraped, and the last counts kept while the store does not answer.
func TestOpenCollector(t *testing.T) {
	now := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	s := &countingStore{counts: map[string]int64{"critical": 2, "warning": 1, "purple": 3, "other": 1}}
	reg := prometheus.NewRegistry()
	reg.MustRegister(alert.NewOpenCollector(alert.OpenCollectorConfig{
		Store: s, Now: func() time.Time { return now }, Logger: slog.New(slog.DiscardHandler),
	}))
	want := map[string]float64{"stockout": 0, "critical": 2, "warning": 1, "slow_moving": 0, "other": 4}
	if got := openGauges(t, reg); !reflect.DeepEqual(got, want) {
		t.Fatalf("first scrape %v, want %v", got, want)
	}
	s.counts = map[string]int64{"stockout": 1}
	now = now.Add(14 * time.Second)
	if got := openGauges(t, reg); !reflect.DeepEqual(got, want) || s.reads != 1 {
		t.Fatalf("scrape within 15 s: %v after %d reads, want %v from one read", got, s.reads, want)
	}
	now = now.Add(time.Second)
	want = map[string]float64{"stockout": 1, "critical": 0, "warning": 0, "slow_moving": 0, "other": 0}
	if got := openGauges(t, reg); !reflect.DeepEqual(got, want) || s.reads != 2 {
		t.Fatalf("scrape after 15 s: %v after %d reads, want %v from a second read", got, s.reads, want)
	}
	s.err = errors.New("database down")
	now = now.Add(time.Minute)
	if got := openGauges(t, reg); !reflect.DeepEqual(got, want) || s.reads != 3 {
		t.Fatalf("scrape with the store down: %v after %d reads, want the last counts %v", got, s.reads, want)
	}
}

// TestOpenCollectorNeverRead: before the store first answers, nothing is
// exposed rather than zeros that would say no alert is open.
func TestOpenCollectorNeverRead(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(alert.NewOpenCollector(alert.OpenCollectorConfig{
		Store: &countingStore{err: errors.New("database down")}, Logger: slog.New(slog.DiscardHandler),
	}))
	if got := openGauges(t, reg); len(got) != 0 {
		t.Fatalf("exposed %v without a count, want nothing", got)
	}
}
