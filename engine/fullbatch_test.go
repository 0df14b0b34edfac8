package engine_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// gatedStore holds every transaction until the gate opens, so requests pile
// up in the queue and the following batches form at their cap.
type gatedStore struct {
	store.Store
	gate chan struct{}
	// arrived, when set, hears of batches reaching the gate, as many as
	// it has room for.
	arrived chan struct{}
}

func (g *gatedStore) Begin(ctx context.Context) (store.Tx, error) {
	if g.arrived != nil {
		select {
		case g.arrived <- struct{}{}:
		default:
		}
	}
	<-g.gate
	return g.Store.Begin(ctx)
}

// TestStampedeFullBatches runs the stampede with batches forced to the cap.
func TestStampedeFullBatches(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		setup := newEngine(t, s, engine.Config{})
		for round := range stampedeRounds {
			for _, stock := range []int64{1, 100} {
				sku := fmt.Sprintf("full-%d-%d", round, stock)
				seed(t, setup, sku, stock)
				gated := &gatedStore{Store: s, gate: make(chan struct{})}
				reg := prometheus.NewRegistry()
				e := engine.New(engine.Config{Store: gated, BatchSizeMax: 512, Appliers: 2, Metrics: engine.NewMetrics(reg)})
				var submitted atomic.Int64
				reserve := engineReserve(e)
				done := make(chan []string)
				go func() {
					done <- stampede(s, func(key, sku string) (bool, error) {
						submitted.Add(1)
						return reserve(key, sku)
					}, sku, stock)
				}()
				// Every contender has called Submit and the queue stopped growing:
				// the first batches hold at the gate, the rest wait in the queue.
				for queued := -1; submitted.Load() < contenders || e.Queued() != queued; {
					queued = e.Queued()
					time.Sleep(20 * time.Millisecond)
				}
				if got := gaugeValue(t, reg, "stockd_engine_queue_length"); got != float64(e.Queued()) || got == 0 {
					t.Errorf("queue length gauge %v, want the %d queued", got, e.Queued())
				}
				close(gated.gate)
				if problems := <-done; len(problems) > 0 {
					t.Fatalf("round %d, stock %d: %v", round, stock, problems)
				}
				e.Close()
				if full := batchesAbove(t, reg, 256); full == 0 {
					t.Fatalf("round %d: no batch above 256 commands: the cap was never reached", round)
				}
			}
		}
	})
}

// batchesAbove counts the batches of more than size commands.
func batchesAbove(t *testing.T, reg *prometheus.Registry, size float64) uint64 {
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "stockd_batch_commands" {
			continue
		}
		h := f.GetMetric()[0].GetHistogram()
		var atMost uint64
		for _, b := range h.GetBucket() {
			if b.GetUpperBound() == size {
				atMost = b.GetCumulativeCount()
			}
		}
		return h.GetSampleCount() - atMost
	}
	t.Fatal("no stockd_batch_commands metric")
	return 0
}

// gaugeValue reads an unlabelled gauge.
func gaugeValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetGauge().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}
