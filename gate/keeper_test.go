package gate_test

import (
	"context"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestClosedCampaignShut: a campaign closed in the database whose shut
// never reached Redis is shut by the keeper; its reservations then answer
// campaign_not_active (final, not a retryable 503), and the returner adds
// nothing to it.
func TestClosedCampaignShut(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 5})
		h.preheat()
		res := h.reserve("a", "", map[string]int64{"tee": 1})
		if res.Err != nil {
			t.Fatal(res.Err)
		}
		h.drain(h.gate)
		h.ok(&stockd.CampaignClose{Pool: pool}) // the close's own shut "failed": never sent
		ctx := context.Background()
		if err := h.gate.KeepOnce(ctx); err != nil {
			t.Fatalf("keeper: %v", err)
		}
		if n := h.rdb.Exists(ctx, h.prefix+"{flash}:shut").Val(); n != 1 {
			t.Fatal("the keeper did not shut the closed campaign")
		}
		// Another gate, whose pool cache still says open, asks the script.
		fresh := h.newGate("c2")
		if _, _, err := fresh.Pool(ctx, pool); err != nil {
			t.Fatal(err)
		}
		h.gate = fresh
		if res := h.reserve("b", "", map[string]int64{"tee": 1}); code(res) != stockd.CodeCampaignNotActive {
			t.Fatalf("after the close: %v, want campaign_not_active", res.Err)
		}
		before := h.redisStock()
		h.release(res.Reservation.ID)
		h.returnPass(h.gate)
		if got := h.redisStock(); got != before {
			t.Fatalf("the returner added to a closed campaign: %d, was %d", got, before)
		}
		if res := h.gate.Refill(ctx, pool); res == nil {
			t.Fatal("a refill of a closed campaign succeeded")
		}
	})
}

// TestRefillEndingAfterCloseKeepsShut: a refill under way when the close
// shuts the gate ends without reopening it (its pause is its own; the
// shut is another key).
func TestRefillEndingAfterCloseKeepsShut(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 5})
		h.preheat()
		ctx := context.Background()
		// A win in flight holds the refill in its drain.
		inflight := h.prefix + "{flash}:inflight"
		h.rdb.HSet(ctx, inflight, "tee/east", 1)
		done := make(chan error, 1)
		go func() { done <- h.gate.Refill(ctx, pool) }()
		waitFor(t, func() bool { return h.rdb.Exists(ctx, h.prefix+"{flash}:paused").Val() == 1 })
		h.ok(&stockd.CampaignClose{Pool: pool})
		if err := h.gate.Shut(ctx, pool); err != nil {
			t.Fatal(err)
		}
		h.rdb.HSet(ctx, inflight, "tee/east", 0)
		if err := <-done; err != nil {
			t.Fatalf("refill: %v", err)
		}
		if res := h.reserve("late", "", map[string]int64{"tee": 1}); code(res) != stockd.CodeCampaignNotActive {
			t.Fatalf("after a refill that ended after the close: %v, want campaign_not_active", res.Err)
		}
		if n := h.rdb.Exists(ctx, h.prefix+"{flash}:shut").Val(); n != 1 {
			t.Fatal("the refill removed the shut")
		}
	})
}

// TestAutomaticPreheat: the keeper preheats a gated campaign inside its
// preheat lead, once across replicas, and leaves one whose lead has not
// begun.
func TestAutomaticPreheat(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 5})
		ctx := context.Background()
		for id, starts := range map[string]time.Duration{"soon": 10 * time.Minute, "later": 2 * time.Hour} {
			from, until := time.Now().Add(starts), time.Now().Add(starts+time.Hour)
			h.ok(&stockd.PoolCreate{Pool: stockd.Pool{ID: id, Kind: stockd.PoolCampaign, StartsAt: &from, EndsAt: &until,
				Gate: stockd.PoolGateRedis, PreheatLeadSeconds: 3600}})
			h.ok(&stockd.Receive{Position: stockd.PositionKey{SKU: "tee", Location: "east"}, Quantity: 4})
			h.ok(&stockd.Allocate{SKU: "tee", Location: "east", FromPool: stockd.PoolDefault, ToPool: id, Quantity: 4})
		}
		preheatedAt := func(id string) time.Time {
			d, err := h.store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocGate, ID: id})
			if err != nil {
				return time.Time{}
			}
			var st stockd.GateState
			if err := decodeJSON(d.Body, &st); err != nil {
				t.Fatal(err)
			}
			return st.PreheatedAt
		}
		replicas := []interface{ KeepOnce(context.Context) error }{h.gate, h.newGate("c2")}
		for _, r := range replicas {
			if err := r.KeepOnce(ctx); err != nil {
				t.Fatalf("keeper: %v", err)
			}
		}
		first := preheatedAt("soon")
		if first.IsZero() {
			t.Fatal("the campaign inside its lead was not preheated")
		}
		if n, err := h.rdb.Get(ctx, h.prefix+"{soon}:stock:tee/east").Int64(); err != nil || n != 4 {
			t.Fatalf("soon's gate holds %d (%v), want 4", n, err)
		}
		if !preheatedAt("later").IsZero() || h.rdb.Exists(ctx, h.prefix+"{later}:stock:tee/east").Val() != 0 {
			t.Fatal("the campaign before its lead was preheated")
		}
		if err := replicas[1].KeepOnce(ctx); err != nil {
			t.Fatal(err)
		}
		if again := preheatedAt("soon"); !again.Equal(first) {
			t.Fatalf("preheated twice: %v then %v", first, again)
		}
	})
}

// TestSettleOutlivingItsPauseWritesNothing: a refill whose pause expired
// while it waited (wins may have been taken since its read) writes nothing
// and fails, rather than overwrite counts the gate has sold from.
func TestSettleOutlivingItsPauseWritesNothing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, map[string]int64{"tee": 5})
		h.preheat()
		ctx := context.Background()
		stock := h.prefix + "{flash}:stock:tee/east"
		h.rdb.Del(ctx, stock)
		inflight := h.prefix + "{flash}:inflight"
		h.rdb.HSet(ctx, inflight, "tee/east", 1)
		done := make(chan error, 1)
		go func() { done <- h.gate.Refill(ctx, pool) }()
		waitFor(t, func() bool { return h.rdb.Exists(ctx, h.prefix+"{flash}:paused").Val() == 1 })
		h.rdb.Del(ctx, h.prefix+"{flash}:paused") // its deadline passed
		h.rdb.HSet(ctx, inflight, "tee/east", 0)
		if err := <-done; err == nil {
			t.Fatal("a refill that lost its pause succeeded")
		}
		if h.rdb.Exists(ctx, stock).Val() != 0 {
			t.Fatal("a refill that lost its pause wrote the count")
		}
	})
}
