package gate_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// redisStock is the gate's remaining count of tee at east.
func (h *harness) redisStock() int64 {
	h.t.Helper()
	n, err := h.rdb.Get(context.Background(), h.prefix+"{flash}:stock:tee/east").Int64()
	if err != nil {
		h.t.Fatalf("redis stock: %v", err)
	}
	return n
}

func (h *harness) release(id string) {
	h.t.Helper()
	h.ok(&stockd.Transition{Action: stockd.KindRelease, ReservationID: id})
}

// refund gives the unit of a confirmed reservation of one tee back before
// shipment.
func (h *harness) refund(id string) {
	h.t.Helper()
	h.ok(&stockd.Return{ReservationID: id, Lines: []stockd.ReturnLine{{SKU: "tee", Quantity: 1}}})
}

func (h *harness) returnPass(g *gate.Gate) {
	h.t.Helper()
	if err := g.ReturnPass(context.Background()); err != nil {
		h.t.Fatalf("return pass: %v", err)
	}
}

// leaseFailingStore fails the returner's cursor advance while fail is set:
// a returner that dies after Redis added the units and before the
// database moved its cursor.
type leaseFailingStore struct {
	store.Store
	fail *atomic.Bool
}

var errCursorLost = errors.New("process died before the cursor moved")

func (s leaseFailingStore) RelayLeaseTry(ctx context.Context, name string) (store.RelayLease, error) {
	l, err := s.Store.RelayLeaseTry(ctx, name)
	if err != nil {
		return nil, err
	}
	return failingLease{RelayLease: l, fail: s.fail}, nil
}

type failingLease struct {
	store.RelayLease
	fail *atomic.Bool
}

func (l failingLease) CursorAdvance(ctx context.Context, seq int64, at time.Time) error {
	if l.fail.Load() {
		return errCursorLost
	}
	return l.RelayLease.CursorAdvance(ctx, seq, at)
}

// returnScenario sells 6 of 10 units through the gate, persists them,
// then gives units back three ways, by releases or (refund set) by refunds
// of confirmed wins, each of which adds the units twice unless the
// position's mark stops it:
//   - a release the returner adds, then dies before its cursor moves, and
//     adds again when it runs next;
//   - a release a refill reads from the database before the returner
//     reaches it;
//   - a release a preheat reads before the returner reaches it.
//
// It answers the gate's remaining count and the database's available.
func returnScenario(t *testing.T, b testdb.Backend, markCheck, refund bool) (redisHolds, databaseHolds int64) {
	h := newHarness(t, b, map[string]int64{"tee": 10})
	fail := &atomic.Bool{}
	g := gate.New(gate.Config{Client: h.rdb, Store: leaseFailingStore{Store: h.store, fail: fail}, Engine: h.engine,
		Prefix: h.prefix, Consumer: "c1", DrainTimeout: 5 * time.Second})
	g.SetMarkCheck(markCheck)
	h.gate = g
	h.preheat()
	var ids []string
	for i := range 6 {
		res := h.reserve(fmt.Sprintf("r%d", i), "", map[string]int64{"tee": 1})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		ids = append(ids, res.Reservation.ID)
	}
	h.drain(g)
	if got := h.redisStock(); got != 4 {
		t.Fatalf("after 6 wins the gate holds %d, want 4", got)
	}
	giveBack := h.release
	if refund {
		for _, id := range ids[:3] {
			h.ok(&stockd.Transition{Action: stockd.KindConfirm, ReservationID: id})
		}
		h.returnPass(g) // the confirms give nothing back
		if got := h.redisStock(); got != 4 {
			t.Fatalf("after the confirms the gate holds %d, want 4", got)
		}
		giveBack = h.refund
	}

	// Returned, then the returner dies before its cursor moves.
	giveBack(ids[0])
	fail.Store(true)
	if err := g.ReturnPass(context.Background()); !errors.Is(err, errCursorLost) {
		t.Fatalf("the dying returner: %v", err)
	}
	fail.Store(false)
	h.returnPass(g)
	if got := h.redisStock(); markCheck && got != 5 {
		t.Fatalf("after the returner's replay the gate holds %d, want 5: the unit back once, before any settle", got)
	}

	// Read by a refill (a key lost) before the returner runs.
	giveBack(ids[1])
	h.rdb.Del(context.Background(), h.prefix+"{flash}:stock:tee/east")
	if err := g.Refill(context.Background(), pool); err != nil {
		t.Fatalf("refill: %v", err)
	}
	h.returnPass(g)

	// Read by a preheat before the returner runs.
	giveBack(ids[2])
	h.preheat()
	h.returnPass(g)

	return h.redisStock(), h.poolPosition("tee").Available()
}

// TestReturnExactlyOnce: units released, or refunded, in the database
// come back to the gate once, whether the returner replays them after a
// crash or a refill or preheat already read them; with the mark check off
// (the negative control) the same scenario leaves Redis holding more than
// the database, which would sell units twice.
func TestReturnExactlyOnce(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		for _, refund := range []bool{false, true} {
			t.Run(map[bool]string{false: "release", true: "refund"}[refund], func(t *testing.T) {
				r, d := returnScenario(t, b, true, refund)
				if r != d || d != 7 {
					t.Fatalf("the gate holds %d, the database %d: want both 7", r, d)
				}
				r, d = returnScenario(t, b, false, refund)
				if r <= d {
					t.Fatalf("negative control: with the mark check off the gate holds %d, the database %d: the test would not catch a double return", r, d)
				}
				t.Logf("negative control: without marks the gate holds %d for the database's %d", r, d)
			})
		}
	})
}

// TestReturnerReturnsReleasesAndExpiries runs the Returner itself (under
// its lease) while releases and an expiry happen: every unit comes back
// and the gate sells it again; nothing is added for a closed campaign.
func TestReturnerReturnsReleasesAndExpiries(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 3})
		h.preheat()
		var ids []string
		for i := range 3 {
			ttl := time.Duration(0)
			if i == 2 {
				ttl = time.Second
			}
			res := h.reserveTTL(fmt.Sprintf("r%d", i), "", map[string]int64{"tee": 1}, ttl)
			if res.Err != nil {
				t.Fatal(res.Err)
			}
			ids = append(ids, res.Reservation.ID)
		}
		h.drain(h.gate)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); h.gate.Returner(ctx) }()
		defer func() { cancel(); <-done }()
		h.release(ids[0])
		h.ok(&stockd.Transition{Action: stockd.KindRelease, ReservationID: ids[1], Reason: stockd.ReleasePaymentFailed})
		time.Sleep(1100 * time.Millisecond) // past the third's deadline
		h.ok(&stockd.Transition{Action: stockd.KindExpire, ReservationID: ids[2]})
		waitFor(t, func() bool { return h.redisStock() == 3 })
		if st := h.gate.ReturnerStatus(); !st.Leading {
			t.Fatalf("returner status %+v: want leading", st)
		}
		for i := range 3 {
			if res := h.reserve(fmt.Sprintf("again%d", i), "", map[string]int64{"tee": 1}); res.Err != nil {
				t.Fatalf("a returned unit not sold again: %v", res.Err)
			}
		}
		if res := h.reserve("none", "", map[string]int64{"tee": 1}); code(res) != stockd.CodeInsufficientStock {
			t.Fatalf("beyond the returned units: %v", res.Err)
		}
		h.drain(h.gate)
		if p := h.poolPosition("tee"); p.Available() != 0 || p.Reserved != 3 {
			t.Fatalf("pool position %+v", p.Counters)
		}
	})
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestViewBounded: the stock answer's Redis reads end at their deadline
// against a Redis that never answers, and say unavailable.
func TestViewBounded(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 2})
		h.preheat()
		views := h.gate.View(context.Background(), pool, "tee", []string{"east"})
		if len(views) != 1 || views[0].State != gate.ViewOpen || *views[0].Remaining != 2 || *views[0].InFlight != 0 {
			t.Fatalf("view: %+v", views)
		}
		hole, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer hole.Close()
		go func() {
			for {
				c, err := hole.Accept()
				if err != nil {
					return
				}
				defer c.Close() // accepted, never answered
			}
		}()
		silent := redis.NewClient(&redis.Options{Addr: hole.Addr().String(), MaxRetries: -1})
		defer silent.Close()
		g := gate.New(gate.Config{Client: silent, Store: h.store, Engine: h.engine, Prefix: h.prefix})
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		start := time.Now()
		views = g.View(ctx, pool, "tee", []string{"east"})
		if took := time.Since(start); took > 2*time.Second {
			t.Fatalf("view took %s against a silent Redis", took)
		}
		if views[0].State != gate.ViewUnavailable || views[0].Remaining != nil {
			t.Fatalf("view of a silent Redis: %+v", views[0])
		}
	})
}

// TestReturnWithoutMarkLeavesCount: a count without a mark (written by a
// version of the gate without marks) is never added to: what it already
// holds is unknown. The next preheat writes count and mark.
func TestReturnWithoutMarkLeavesCount(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 5})
		h.preheat()
		res := h.reserve("a", "", map[string]int64{"tee": 1})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		h.drain(h.gate)
		h.rdb.Del(context.Background(), h.prefix+"{flash}:mark:tee/east")
		h.release(res.Reservation.ID)
		h.returnPass(h.gate)
		if got := h.redisStock(); got != 4 {
			t.Fatalf("a count without a mark was added to: %d, want 4", got)
		}
		h.preheat()
		if got := h.redisStock(); got != 5 {
			t.Fatalf("after the preheat the gate holds %d, want 5", got)
		}
	})
}
