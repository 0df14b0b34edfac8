package engine_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// TestRoutingKeepsFirstComeFirstServed queues reservations of one SKU in a
// known order on an engine of several appliers, with small batches so that
// they span many transactions, and with traffic on other SKUs in between:
// exactly the first ones win the limited stock, and their ledger entries
// follow the order they queued in. With one shared queue, several appliers
// each took some of them, and whichever batch locked the row first won.
func TestRoutingKeepsFirstComeFirstServed(t *testing.T) {
	const (
		contenders = 40
		stock      = 10
		others     = 8
	)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		setup := newEngine(t, s, engine.Config{})
		seed(t, setup, "hot", stock)
		for i := range others {
			seed(t, setup, fmt.Sprintf("other-%d", i), 1000)
		}
		gated := &gatedStore{Store: s, gate: make(chan struct{}), arrived: make(chan struct{}, 1)}
		e := newEngine(t, gated, engine.Config{Appliers: 4, BatchSizeMax: 4})
		openGate := sync.OnceFunc(func() { close(gated.gate) })
		var wg sync.WaitGroup
		results := make([]stockd.Result, contenders)
		errs := make([]error, contenders)
		submit := func(i int, cmd stockd.Command) { wg.Go(func() { results[i], errs[i] = e.Submit(ctx, cmd) }) }
		// The first takes its applier to the gate; each next one is
		// submitted once the one before it queued.
		submit(0, reserveCmd("hot-0", "hot", 1))
		<-gated.arrived
		gated.arrived = nil
		queued := 0
		for i := 1; i < contenders; i++ {
			if i%5 == 0 {
				// Another SKU's reservation: its own applier (or this one)
				// takes it, and it must not reorder the hot SKU's.
				wg.Go(func() {
					if _, err := e.Submit(ctx, reserveCmd(fmt.Sprintf("other-%d-%d", i, i), fmt.Sprintf("other-%d", i%others), 1)); err != nil {
						t.Error(err)
					}
				})
				queued = queuedSettled(e)
			}
			submit(i, reserveCmd(fmt.Sprintf("hot-%d", i), "hot", 1))
			queued++
			for deadline := time.Now().Add(5 * time.Second); e.Queued() < queued; {
				if time.Now().After(deadline) {
					openGate()
					wg.Wait()
					t.Fatalf("reservation %d never queued: another applier took it while the first held one of the SKU", i)
				}
				time.Sleep(100 * time.Microsecond)
			}
		}
		openGate()
		wg.Wait()
		order := map[string]int{}
		for i := range contenders {
			switch res := results[i]; {
			case errs[i] != nil:
				t.Fatalf("reservation %d: %v", i, errs[i])
			case i < stock && res.Err != nil:
				t.Errorf("reservation %d queued among the first %d: %v, want it to win", i, stock, res.Err)
			case i >= stock && (res.Err == nil || res.Err.Code != stockd.CodeInsufficientStock):
				t.Errorf("reservation %d queued after the first %d: %+v, want insufficient_stock", i, stock, res.Err)
			case res.Err == nil:
				order[res.Reservation.ID] = i
			}
		}
		entries, err := s.LedgerList(ctx, store.LedgerListParams{SKU: "hot", Type: stockd.BusinessReserve, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		last := -1
		for _, entry := range entries {
			i, ok := order[entry.ReservationID]
			if !ok {
				continue
			}
			if i < last {
				t.Errorf("ledger seq %d books reservation %d after reservation %d: not in queue order", entry.Seq, i, last)
			}
			last = i
		}
		if last != stock-1 {
			t.Errorf("last reservation booked %d, want %d", last, stock-1)
		}
	})
}

// TestSubmitAllKeepsOrderAcrossSKUs: SubmitAll queues an order of x and y,
// then one of y alone, with one unit of y. Routed each on its own they
// could go to two appliers and the later one could take y first; SubmitAll
// keeps them on one applier in their order, so the first always wins.
func TestSubmitAllKeepsOrderAcrossSKUs(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		setup := newEngine(t, s, engine.Config{})
		const rounds = 12
		for round := range rounds {
			seed(t, setup, fmt.Sprintf("x%d", round), 10)
			seed(t, setup, fmt.Sprintf("y%d", round), 1)
		}
		gated := &gatedStore{Store: s, gate: make(chan struct{})}
		e := newEngine(t, gated, engine.Config{Appliers: 4})
		var wg sync.WaitGroup
		results := make([][]stockd.Result, rounds)
		errs := make([][]error, rounds)
		for round := range rounds {
			x, y := fmt.Sprintf("x%d", round), fmt.Sprintf("y%d", round)
			both := stockd.Command{IdempotencyKey: "both-" + y, RequestHash: "both-" + y,
				Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: x, Quantity: 1}, {SKU: y, Quantity: 1}}}}
			wg.Go(func() {
				results[round], errs[round] = e.SubmitAll(ctx, []stockd.Command{both, reserveCmd("alone-"+y, y, 1)})
			})
		}
		queuedSettled(e) // every applier holds a first batch at the gate, the rest wait queued
		close(gated.gate)
		wg.Wait()
		for round := range rounds {
			for i, err := range errs[round] {
				if err != nil {
					t.Fatalf("round %d, command %d: %v", round, i, err)
				}
			}
			if first, second := results[round][0].Err, results[round][1].Err; first != nil || second == nil || second.Code != stockd.CodeInsufficientStock {
				t.Errorf("round %d: order of x and y %v, later order of y %v; want the first to win and the second insufficient_stock", round, first, second)
			}
		}
	})
}

// queuedSettled returns e.Queued() once it has stopped changing: an idle
// applier has taken what came to its queue.
func queuedSettled(e *engine.Engine) int {
	for queued := -1; ; {
		time.Sleep(10 * time.Millisecond)
		if e.Queued() == queued {
			return queued
		}
		queued = e.Queued()
	}
}
