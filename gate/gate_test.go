package gate_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/internal/testdb"
)

// TestScriptAnswers runs each answer of the script against the real Redis,
// in an order where each case sets up the next.
func TestScriptAnswers(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 3})
		h.ok(&stockd.LimitSet{Scope: stockd.LimitScopeCampaign, Target: pool, MaxQuantityPerCustomer: 2, WindowSeconds: 3600})
		h.preheat()
		first := h.reserve("a", "c1", map[string]int64{"tee": 1})
		ctx := context.Background()
		cases := []struct {
			name     string
			setup    func()
			key      string
			customer string
			quantity int64
			sku      string
			code     string
			replayed bool
		}{
			{name: "replay", key: "a", customer: "c1", quantity: 1, replayed: true},
			{name: "key reused", key: "a", customer: "c1", quantity: 2, code: stockd.CodeIdempotencyKeyReused},
			{name: "limit", key: "b", customer: "c1", quantity: 2, code: stockd.CodePurchaseLimitExceeded},
			{name: "insufficient", key: "c", quantity: 3, code: stockd.CodeInsufficientStock},
			{name: "taken", key: "d", quantity: 2},
			{name: "insufficient at zero", key: "e", quantity: 1, code: stockd.CodeInsufficientStock},
			{name: "missing position is never a success", key: "f", quantity: 1, sku: "mug", code: stockd.CodeInsufficientStock,
				setup: func() { h.drain(h.gate) }},
			{name: "paused", key: "g", quantity: 1, code: stockd.CodeGateUnavailable, setup: func() {
				h.rdb.Set(ctx, h.prefix+"{flash}:paused", "settling", time.Minute)
			}},
			{name: "closed", key: "h", quantity: 1, code: stockd.CodeGateClosed, setup: func() {
				h.rdb.Del(ctx, h.prefix+"{flash}:paused")
				h.rdb.HSet(ctx, h.prefix+"{flash}:closed", "tee/east", "test")
			}},
		}
		for _, c := range cases {
			if c.setup != nil {
				c.setup()
			}
			sku := c.sku
			if sku == "" {
				sku = "tee"
			}
			res := h.reserve(c.key, c.customer, map[string]int64{sku: c.quantity})
			if code(res) != c.code || res.Replayed != c.replayed {
				t.Errorf("%s: code %q replayed %v, want %q %v (%v)", c.name, code(res), res.Replayed, c.code, c.replayed, res.Err)
			}
			if c.replayed && res.Reservation.ID != first.Reservation.ID {
				t.Errorf("%s: id %s, want the first answer's %s", c.name, res.Reservation.ID, first.Reservation.ID)
			}
		}
	})
}

// TestMissingKeyRefillsFromDatabase: a stock key lost (evicted, flushed)
// answers -1, which refills from the database, then the script runs again.
func TestMissingKeyRefillsFromDatabase(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 3})
		h.preheat()
		if res := h.reserve("a", "", map[string]int64{"tee": 2}); res.Err != nil {
			t.Fatal(res.Err)
		}
		h.drain(h.gate)
		h.rdb.Del(context.Background(), h.prefix+"{flash}:stock:tee/east")
		if res := h.reserve("b", "", map[string]int64{"tee": 2}); code(res) != stockd.CodeInsufficientStock {
			t.Fatalf("after the refill 1 is left, yet 2 were answered %v", res.Err)
		}
		if res := h.reserve("c", "", map[string]int64{"tee": 1}); res.Err != nil {
			t.Fatalf("the last unit: %v", res.Err)
		}
		h.drain(h.gate)
		if p := h.poolPosition("tee"); p.Reserved != 3 || p.Available() != 0 {
			t.Fatalf("pool position %+v, want 3 reserved and none available", p.Counters)
		}
	})
}

// TestStampede: N concurrent reservations of 1 on S units from customers
// limited to 2 each, persisted while they arrive: exactly min(N, S) wins,
// each persisted once, no customer above the limit, no drift.
func TestStampede(t *testing.T) {
	const units, requests, customers, limit = 50, 300, 40, 2
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": units})
		h.ok(&stockd.LimitSet{Scope: stockd.LimitScopeCampaign, Target: pool, MaxQuantityPerCustomer: limit, WindowSeconds: 3600})
		h.preheat()
		ctx, cancel := context.WithCancel(context.Background())
		persisted := make(chan struct{})
		go func() { defer close(persisted); _ = h.gate.Persister(ctx) }()
		var wg sync.WaitGroup
		var mu sync.Mutex
		wins := map[string]string{}
		var winKey, winCustomer string
		perCustomer := map[string]int{}
		for i := range requests {
			wg.Go(func() {
				customer := fmt.Sprintf("c%d", i%customers)
				res := h.reserve(fmt.Sprintf("s%d", i), customer, map[string]int64{"tee": 1})
				if res.Err != nil {
					if res.Err.Code != stockd.CodeInsufficientStock && res.Err.Code != stockd.CodePurchaseLimitExceeded {
						t.Errorf("request %d: %v", i, res.Err)
					}
					return
				}
				mu.Lock()
				wins[res.Reservation.ID] = customer
				winKey, winCustomer = fmt.Sprintf("s%d", i), customer
				perCustomer[customer]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if len(wins) != units {
			t.Fatalf("%d wins, want %d", len(wins), units)
		}
		for c, n := range perCustomer {
			if n > limit {
				t.Errorf("customer %s won %d, above the limit %d", c, n, limit)
			}
		}
		h.drain(h.gate)
		cancel()
		<-persisted
		for id, customer := range wins {
			r, err := h.store.ReservationGet(context.Background(), id)
			if err != nil || r.Status != stockd.StatusPending || r.CustomerID != customer {
				t.Fatalf("win %s in the database: %+v %v", id, r, err)
			}
		}
		if p := h.poolPosition("tee"); p.Reserved != units || p.Available() != 0 {
			t.Fatalf("pool position %+v, want %d reserved, none available", p.Counters, units)
		}
		if rep := h.reconcile(); rep.Drifted {
			t.Fatalf("drift after the sale: %+v", rep)
		}
		if res := h.reserve(winKey, winCustomer, map[string]int64{"tee": 1}); !res.Replayed {
			t.Fatalf("a retry of a win is not replayed: %+v", res)
		}
	})
}

// crashingEngine passes commands to the engine until after is spent, then
// applies one more and fails it (the process died after the database
// committed, before Redis heard), then fails every command unapplied.
type crashingEngine struct {
	gate.Submitter
	after atomic.Int64
}

var errCrashed = errors.New("persister crashed")

func (c *crashingEngine) Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	switch n := c.after.Add(-1); {
	case n >= 0:
		return c.Submitter.Submit(ctx, cmd)
	case n == -1:
		if _, err := c.Submitter.Submit(ctx, cmd); err != nil {
			return stockd.Result{}, err
		}
	}
	return stockd.Result{}, errCrashed
}

// TestPersisterCrashReclaimed: a persister dies mid-stream, one entry
// applied to the database but not acknowledged; another consumer claims
// the pending entries and every win is persisted exactly once.
func TestPersisterCrashReclaimed(t *testing.T) {
	const wins = 40
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": wins})
		h.preheat()
		ids := make([]string, 0, wins)
		for i := range wins {
			res := h.reserve(fmt.Sprintf("w%d", i), "", map[string]int64{"tee": 1})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			ids = append(ids, res.Reservation.ID)
		}
		crashing := &crashingEngine{Submitter: h.engine}
		crashing.after.Store(wins / 2)
		dying := gate.New(gate.Config{Client: h.rdb, Store: h.store, Engine: crashing, Prefix: h.prefix, Consumer: "dying"})
		if _, err := dying.PersistOnce(context.Background(), []string{pool}, 10*time.Millisecond); !errors.Is(err, errCrashed) {
			t.Fatalf("the dying persister: %v", err)
		}
		if p := h.poolPosition("tee"); p.Reserved != wins/2+1 {
			t.Fatalf("before the crash %d were persisted, want %d", p.Reserved, wins/2+1)
		}
		time.Sleep(100 * time.Millisecond) // past ClaimIdle
		h.drain(h.newGate("survivor"))
		for _, id := range ids {
			if _, err := h.store.ReservationGet(context.Background(), id); err != nil {
				t.Fatalf("win %s: %v", id, err)
			}
		}
		if p := h.poolPosition("tee"); p.Reserved != wins || p.Available() != 0 {
			t.Fatalf("pool position %+v, want each of %d wins persisted once", p.Counters, wins)
		}
		if rep := h.reconcile(); rep.Drifted {
			t.Fatalf("drift: %+v", rep)
		}
	})
}

// TestRefusedWinBecomesException: stock taken from the pool behind the
// gate's back makes the database refuse a win; it becomes a gate_oversell
// record, the position closes, reconciliation reports the drift, and a
// preheat reopens the gate at what the database holds.
func TestRefusedWinBecomesException(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 2})
		h.preheat()
		h.ok(&stockd.Allocate{SKU: "tee", Location: "east", FromPool: pool, ToPool: stockd.PoolDefault, Quantity: 1})
		if rep := h.reconcile(); !rep.Drifted || rep.Positions[0].Drift != -1 {
			t.Fatalf("reconciliation: %+v, want a drift of -1", rep)
		}
		var refused string
		for i := range 2 {
			res := h.reserve(fmt.Sprintf("x%d", i), "", map[string]int64{"tee": 1})
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			refused = res.Reservation.ID
		}
		h.drain(h.gate)
		d, err := h.store.DocumentGet(context.Background(), stockd.DocKey{Kind: stockd.DocGateException, ID: refused})
		if err != nil {
			t.Fatalf("exception record of %s: %v", refused, err)
		}
		t.Logf("exception: %s", d.Body)
		var doc stockd.GateException
		if err := json.Unmarshal(d.Body, &doc); err != nil || doc.ExceptionID == "" {
			t.Fatalf("gate exception %s names no exception_id: %v", d.Body, err)
		}
		e, err := h.store.ExceptionGet(context.Background(), doc.ExceptionID)
		if err != nil || e.Kind != stockd.ExceptionGateOversell || e.ReservationID != refused || e.Status != stockd.ExceptionOpen ||
			e.Pool != pool || e.WonAt == nil || !e.WonAt.Equal(doc.WonAt) || e.ID != stockd.ExceptionID(doc.WonAt, e.ID[19:]) {
			t.Fatalf("exception record %s = %+v, %v; want an open gate_oversell of %s, its id from the win's time", doc.ExceptionID, e, err, refused)
		}
		if res := h.reserve("y", "", map[string]int64{"tee": 1}); code(res) != stockd.CodeGateClosed {
			t.Fatalf("after the exception: %v, want gate_closed", res.Err)
		}
		h.preheat()
		if res := h.reserve("z", "", map[string]int64{"tee": 1}); code(res) != stockd.CodeInsufficientStock {
			t.Fatalf("after the preheat: %v, want insufficient (the database holds none)", res.Err)
		}
		if p := h.poolPosition("tee"); p.Reserved != 1 || p.Available() != 0 {
			t.Fatalf("pool position %+v", p.Counters)
		}
	})
}

// TestNaiveGateOversells is the negative control: the same stampede
// against a GET-then-DECRBY gate (check-then-act in two round trips)
// sells more than it holds; the script does not.
func TestNaiveGateOversells(t *testing.T) {
	rdb := redisClient(t)
	ctx := context.Background()
	const units, buyers = 10, 100
	run := func(key string, take func() bool) int64 {
		rdb.Set(ctx, key, units, time.Minute)
		defer rdb.Del(ctx, key)
		var won atomic.Int64
		var wg sync.WaitGroup
		for range buyers {
			wg.Go(func() {
				if take() {
					won.Add(1)
				}
			})
		}
		wg.Wait()
		return won.Load()
	}
	naiveKey := "stockd-test:naive:" + fmt.Sprint(time.Now().UnixNano())
	naive := run(naiveKey, func() bool {
		v, err := rdb.Get(ctx, naiveKey).Int64()
		if err != nil || v < 1 {
			return false
		}
		time.Sleep(time.Millisecond) // the window between check and act
		return rdb.DecrBy(ctx, naiveKey, 1).Err() == nil
	})
	if naive <= units {
		t.Fatalf("the naive gate sold %d of %d: the control did not catch the race", naive, units)
	}
	t.Logf("naive GET-then-DECRBY sold %d of %d", naive, units)
}

// TestCampaignKeysLost: every key of the campaign lost mid-sale (as a
// FLUSHALL or a Redis restarted without AOF would lose them, here only
// this test's keys) after the persister caught up: the -1 path refills
// from the database, which knows what was sold, and nothing is sold
// twice.
func TestCampaignKeysLost(t *testing.T) {
	const units = 10
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": units})
		h.preheat()
		won := 0
		for i := range 4 {
			if res := h.reserve(fmt.Sprintf("before%d", i), "", map[string]int64{"tee": 1}); res.Err == nil {
				won++
			}
		}
		h.drain(h.gate)
		h.cleanRedis()
		for i := range 2 * units {
			if res := h.reserve(fmt.Sprintf("after%d", i), "", map[string]int64{"tee": 1}); res.Err == nil {
				won++
			} else if res.Err.Code != stockd.CodeInsufficientStock {
				t.Fatalf("after the loss: %v", res.Err)
			}
		}
		h.drain(h.gate)
		if p := h.poolPosition("tee"); won != units || p.Reserved != units || p.Available() != 0 {
			t.Fatalf("%d won, pool position %+v: want exactly %d sold", won, p.Counters, units)
		}
	})
}
