package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store"
)

// retriesByCause reads stockd_batch_retries_total by its cause label.
func retriesByCause(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		if f.GetName() != "stockd_batch_retries_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "cause" {
					got[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return got
}

// TestRetryCausesExposedFromTheStart: every cause is a series at 0 before
// any retry, and no other cause exists, so that rules and dashboards see
// the whole fixed set at once.
func TestRetryCausesExposedFromTheStart(t *testing.T) {
	reg := prometheus.NewRegistry()
	engine.NewMetrics(reg)
	got := retriesByCause(t, reg)
	if len(got) != len(engine.RetryCauses) {
		t.Fatalf("causes %v, want exactly %v", got, engine.RetryCauses)
	}
	for _, cause := range engine.RetryCauses {
		if v, ok := got[cause]; !ok || v != 0 {
			t.Errorf("cause %s: %v (exposed %v), want 0", cause, v, ok)
		}
	}
}

func TestRetryCause(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{fmt.Errorf("%w: %w: boom", store.ErrRetry, store.ErrSerialization), engine.RetryCauseSerialization},
		{fmt.Errorf("%w: %w: boom", store.ErrRetry, store.ErrDeadlock), engine.RetryCauseDeadlock},
		{fmt.Errorf("write: %w", fmt.Errorf("%w: %w: boom", store.ErrRetry, store.ErrBusy)), engine.RetryCauseBusy},
		{fmt.Errorf("%w: %w: boom", store.ErrRetry, store.ErrUniqueKey), engine.RetryCauseUniqueKey},
		{fmt.Errorf("%w: boom", store.ErrRetry), engine.RetryCauseOther},
		{errors.New("boom"), engine.RetryCauseOther},
	} {
		if got := engine.RetryCauseOf(c.err); got != c.want {
			t.Errorf("RetryCauseOf(%v) = %s, want %s", c.err, got, c.want)
		}
	}
}
