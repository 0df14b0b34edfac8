package engine_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/internal/testdb"
)

func reserveCmd(key, sku string, q int64) stockd.Command {
	return stockd.Command{IdempotencyKey: key, RequestHash: key,
		Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: sku, Quantity: q}}}}
}

func receiveCmd(key, sku string, q int64) stockd.Command {
	return stockd.Command{IdempotencyKey: key, RequestHash: key,
		Op: &stockd.Receive{Position: stockd.PositionKey{SKU: sku}, Quantity: q}}
}

func mustSubmit(t *testing.T, e *engine.Engine, cmd stockd.Command) stockd.Result {
	t.Helper()
	res, err := e.Submit(ctx, cmd)
	if err != nil {
		t.Fatalf("%s: %v", cmd.Kind(), err)
	}
	return res
}

func counterValue(t *testing.T, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return f.GetMetric()[0].GetCounter().GetValue()
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// TestSoldOutKnowledge: once a position is sold out, refusals come without a
// transaction; stock added by the same engine is sellable at once, stock
// added by another engine on the same database within a second; a retry of
// a reservation that won replays it instead of being refused.
func TestSoldOutKnowledge(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		reg := prometheus.NewRegistry()
		e := newEngine(t, s, engine.Config{Metrics: engine.NewMetrics(reg)})
		other := newEngine(t, s, engine.Config{})
		seed(t, e, "hot", 1)
		won := mustSubmit(t, e, reserveCmd("winner", "hot", 1))
		if won.Err != nil {
			t.Fatal(won.Err)
		}
		// The winner's batch left nothing available: it taught the engine.
		res := mustSubmit(t, e, reserveCmd("loser", "hot", 1))
		if res.Err == nil || res.Err.Code != stockd.CodeInsufficientStock || !res.Unstored {
			t.Fatalf("loser = %+v, want a refusal from sold-out knowledge", res)
		}
		if n := counterValue(t, reg, "stockd_sold_out_answers_total"); n != 1 {
			t.Fatalf("sold-out answers = %v, want 1", n)
		}
		if replay := mustSubmit(t, e, reserveCmd("winner", "hot", 1)); !replay.Replayed || replay.Reservation.ID != won.Reservation.ID {
			t.Fatalf("retry of the winner = %+v, want a replay of its reservation", replay)
		}

		mustSubmit(t, e, receiveCmd("restock-1", "hot", 1))
		if res := mustSubmit(t, e, reserveCmd("after-restock", "hot", 1)); res.Err != nil {
			t.Fatalf("after a restock by the same engine: %v", res.Err)
		}

		mustSubmit(t, e, reserveCmd("sold-out-again", "hot", 1))
		if res := mustSubmit(t, e, reserveCmd("still-sold-out", "hot", 1)); !res.Unstored {
			t.Fatalf("want sold-out knowledge again, got %+v", res)
		}
		mustSubmit(t, other, receiveCmd("restock-2", "hot", 1))
		deadline := time.Now().Add(3 * time.Second)
		for i := 0; ; i++ {
			res := mustSubmit(t, e, reserveCmd(fmt.Sprintf("poll-%d", i), "hot", 1))
			if res.Err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("stock added by another engine was still refused after 3 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
		(&flowtest.Harness{T: t, Store: s}).Verify()
	})
}

// TestQueuePerSKUCap refuses at once what would queue beyond the cap.
func TestQueuePerSKUCap(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		setup := newEngine(t, s, engine.Config{})
		seed(t, setup, "hot", 1000)
		gated := &gatedStore{Store: s, gate: make(chan struct{})}
		e := engine.New(engine.Config{Store: gated, QueuePerSKUMax: 10, BatchSizeMax: 1})
		defer e.Close()
		results := make(chan stockd.Result, 50)
		for i := range 50 {
			go func() {
				res, _ := e.Submit(ctx, reserveCmd(fmt.Sprintf("k%d", i), "hot", 1))
				results <- res
			}()
		}
		overloaded := 0
		for overloaded < 50-11 { // one held at the gate, ten queued
			res := <-results
			if res.Err == nil || res.Err.Code != stockd.CodeOverloaded {
				t.Fatalf("before the gate opened: %+v, want overloaded", res)
			}
			overloaded++
		}
		close(gated.gate)
		for range 11 {
			if res := <-results; res.Err != nil {
				t.Fatalf("admitted request: %v", res.Err)
			}
		}
	})
}
