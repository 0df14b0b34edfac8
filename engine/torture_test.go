package engine_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

var ctx = context.Background()

const (
	contenders     = 1000
	stampedeRounds = 10
	deadlockRounds = 20
	raceRounds     = 30
)

// modes are the engine shapes every torture test runs under: coalesced
// batches, and one command per transaction with many transactions in
// flight, where only the database's locks keep the books right.
var modes = []struct {
	name   string
	cfg    engine.Config
	rounds int
}{
	{"coalesced", engine.Config{Appliers: 2}, stampedeRounds},
	{"batch-cap-8", engine.Config{BatchSizeMax: 8, Appliers: 4}, stampedeRounds},
	// A thousand transactions per stampede on one hot row is slow by
	// design (that is the problem batching solves): fewer rounds here.
	{"one-per-transaction", engine.Config{BatchSizeMax: 1, Appliers: 8}, 3},
}

func newEngine(t testing.TB, s store.Store, cfg engine.Config) *engine.Engine {
	cfg.Store = s
	e := engine.New(cfg)
	t.Cleanup(e.Close)
	return e
}

// reserveOne is one contender's attempt to reserve a unit of sku.
type reserveOne func(key, sku string) (bool, error)

func engineReserve(e *engine.Engine) reserveOne {
	return func(key, sku string) (bool, error) {
		res, err := e.Submit(ctx, stockd.Command{IdempotencyKey: key, RequestHash: key,
			Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: sku, Quantity: 1}}}})
		if err != nil {
			return false, err
		}
		if res.Err != nil {
			if res.Err.Code != stockd.CodeInsufficientStock {
				return false, res.Err
			}
			return false, nil
		}
		return true, nil
	}
}

// stampede runs contenders concurrent reservations of one unit against
// stock and returns what went wrong: nothing, if exactly stock won and the
// books agree.
func stampede(s store.Store, reserve reserveOne, sku string, stock int64) []string {
	var wins atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, contenders)
	start := make(chan struct{})
	for i := range contenders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			ok, err := reserve(fmt.Sprintf("%s-%d", sku, i), sku)
			if err != nil {
				errs <- err
			}
			if ok {
				wins.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	var problems []string
	for err := range errs {
		problems = append(problems, "error: "+err.Error())
		break
	}
	if got := wins.Load(); got != stock {
		problems = append(problems, fmt.Sprintf("%d reservations won, stock was %d", got, stock))
	}
	ps, err := s.PositionListBySKU(ctx, sku)
	if err != nil || len(ps) != 1 {
		return append(problems, fmt.Sprintf("positions: %v, %v", ps, err))
	}
	if c := ps[0].Counters; c.Reserved != stock || c.Available() != 0 {
		problems = append(problems, fmt.Sprintf("counters %+v, want %d reserved and none available", c, stock))
	}
	rep, err := audit.Verify(ctx, s)
	if err != nil {
		return append(problems, "verify: "+err.Error())
	}
	if !rep.Clean() {
		problems = append(problems, fmt.Sprintf("verify: %d differences, first %+v", rep.Count, rep.Differences[0]))
	}
	return problems
}

func seed(t testing.TB, e *engine.Engine, sku string, stock int64) {
	t.Helper()
	for _, cmd := range []stockd.Command{
		{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: sku}}},
		{Op: &stockd.Receive{Position: stockd.PositionKey{SKU: sku}, Quantity: stock}},
	} {
		cmd.IdempotencyKey, cmd.RequestHash = "seed-"+string(cmd.Kind())+"-"+sku, "seed"
		res, err := e.Submit(ctx, cmd)
		if err != nil || res.Err != nil {
			t.Fatalf("seed %s: %v %v", sku, err, res.Err)
		}
	}
}

func TestStampedeNeverOversells(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		for _, mode := range modes {
			t.Run(mode.name, func(t *testing.T) {
				s := b.New(t)
				e := newEngine(t, s, mode.cfg)
				for round := range mode.rounds {
					for _, stock := range []int64{1, 100} {
						sku := fmt.Sprintf("hot-%d-%d", round, stock)
						seed(t, e, sku, stock)
						if problems := stampede(s, engineReserve(e), sku, stock); len(problems) > 0 {
							t.Fatalf("round %d, stock %d: %v", round, stock, problems)
						}
					}
				}
			})
		}
	})
}

// naiveReserve is the seeds' check-then-act bug: read available, then
// write the counters back from what was read, with the time a real
// service spends between the two.
func naiveReserve(s store.Store) reserveOne {
	return func(key, sku string) (bool, error) {
		ps, err := s.PositionListBySKU(ctx, sku)
		if err != nil {
			return false, err
		}
		p := ps[0]
		if p.Available() < 1 {
			return false, nil
		}
		time.Sleep(time.Millisecond)
		now := time.Now().UTC().Truncate(time.Microsecond)
		after := p.Counters
		after.Reserved++
		res := stockd.Reservation{ID: key, Key: key, Status: stockd.StatusPending, CreatedAt: now, UpdatedAt: now,
			ExpiresAt: now.Add(time.Hour), Lines: []stockd.ReservationLine{{SKU: sku, Quantity: 1, Location: p.Location, Pool: p.Pool}}}
		tx, err := s.Begin(ctx)
		if err != nil {
			return false, err
		}
		defer tx.Rollback(ctx)
		err = tx.Write(ctx, &stockd.BatchWrites{
			Positions:       []stockd.Position{{PositionKey: p.PositionKey, Counters: after}},
			ReservationsNew: []stockd.Reservation{res},
			Ledger: []stockd.LedgerEntry{{BusinessType: stockd.BusinessReserve, BusinessID: key, Position: p.PositionKey,
				Delta: stockd.Counters{Reserved: 1}, After: after, ReservationID: key, CreatedAt: now}},
		})
		if err != nil {
			return false, err
		}
		return true, tx.Commit(ctx)
	}
}

// TestStampedeNegativeControl shows the stampede check catches a
// read-then-write implementation: if it ever passed, the check would prove
// nothing.
func TestStampedeNegativeControl(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		e := newEngine(t, s, engine.Config{})
		seed(t, e, "naive", 100)
		problems := stampede(s, naiveReserve(s), "naive", 100)
		if len(problems) == 0 {
			t.Fatal("the stampede check passed a check-then-act implementation")
		}
		t.Logf("caught, as it should: %v", problems)
	})
}

// TestOppositeLockOrders runs orders of (A, B) and (B, A) at once: no
// deadlock may surface and every order is all or nothing.
func TestOppositeLockOrders(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		for _, mode := range modes {
			t.Run(mode.name, func(t *testing.T) {
				s := b.New(t)
				e := newEngine(t, s, mode.cfg)
				for round := range deadlockRounds {
					a, bb := fmt.Sprintf("A%d", round), fmt.Sprintf("B%d", round)
					seed(t, e, a, 50)
					seed(t, e, bb, 30)
					var wins atomic.Int64
					var wg sync.WaitGroup
					for i := range 100 {
						wg.Add(1)
						go func() {
							defer wg.Done()
							lines := []stockd.LineRequest{{SKU: a, Quantity: 1}, {SKU: bb, Quantity: 1}}
							if i%2 == 1 {
								lines[0], lines[1] = lines[1], lines[0]
							}
							key := fmt.Sprintf("%s-%d", a, i)
							res, err := e.Submit(ctx, stockd.Command{IdempotencyKey: key, RequestHash: key,
								Op: &stockd.Reserve{Lines: lines}})
							switch {
							case err != nil:
								t.Errorf("order %d: %v", i, err)
							case res.Err == nil:
								wins.Add(1)
							case res.Err.Code != stockd.CodeInsufficientStock:
								t.Errorf("order %d: %v", i, res.Err)
							}
						}()
					}
					wg.Wait()
					if wins.Load() != 30 {
						t.Fatalf("round %d: %d orders won, want 30 (B's stock)", round, wins.Load())
					}
					h := flowtest.Harness{T: t, Store: s}
					if ca, cb := h.Counters(a, "default"), h.Counters(bb, "default"); ca.Reserved != 30 || cb.Reserved != 30 {
						t.Fatalf("round %d: reserved A=%d B=%d, want 30 each", round, ca.Reserved, cb.Reserved)
					}
				}
				(&flowtest.Harness{T: t, Store: s}).Verify()
			})
		}
	})
}
