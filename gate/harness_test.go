package gate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// redisClient connects to STOCKD_TEST_REDIS_URL, or skips.
func redisClient(t *testing.T) *redis.Client {
	t.Helper()
	url := os.Getenv("STOCKD_TEST_REDIS_URL")
	if url == "" {
		t.Skip("STOCKD_TEST_REDIS_URL not set: the gate tests need a real Redis (.ci/run sets redis://127.0.0.1:6379/0)")
	}
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	if err := rdb.Ping(context.Background()).Err(); err != nil {
		t.Fatalf("redis at %s: %v", url, err)
	}
	return rdb
}

// harness is a gated campaign pool "flash" on a fresh store, with its own
// key prefix in the shared Redis, deleted when the test ends.
type harness struct {
	t      *testing.T
	store  store.Store
	engine *engine.Engine
	rdb    *redis.Client
	gate   *gate.Gate
	prefix string
	keys   atomic.Int64
}

const pool = "flash"

func newHarness(t *testing.T, b testdb.Backend, stock map[string]int64) *harness {
	t.Helper()
	return newHarnessOn(t, b, redisClient(t), stock)
}

// newHarnessOn is newHarness on a Redis of the caller's.
func newHarnessOn(t *testing.T, b testdb.Backend, rdb *redis.Client, stock map[string]int64) *harness {
	t.Helper()
	st := b.New(t)
	eng := engine.New(engine.Config{Store: st})
	t.Cleanup(eng.Close)
	h := &harness{t: t, store: st, engine: eng, rdb: rdb, prefix: "stockd-test:" + uuid.NewString() + ":"}
	h.gate = h.newGate("c1")
	t.Cleanup(h.cleanRedis)
	from, until := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
	h.ok(&stockd.LocationCreate{Location: stockd.Location{ID: "east", Name: "East"}})
	h.ok(&stockd.PoolCreate{Pool: stockd.Pool{ID: pool, Kind: stockd.PoolCampaign, StartsAt: &from, EndsAt: &until, Gate: stockd.PoolGateRedis}})
	for sku, q := range stock {
		h.ok(&stockd.SKUCreate{SKU: stockd.SKU{ID: sku, Name: sku}})
		h.ok(&stockd.Receive{Position: stockd.PositionKey{SKU: sku, Location: "east"}, Quantity: q + 5})
		h.ok(&stockd.Allocate{SKU: sku, Location: "east", FromPool: stockd.PoolDefault, ToPool: pool, Quantity: q})
	}
	return h
}

func (h *harness) newGate(consumer string) *gate.Gate {
	return gate.New(gate.Config{Client: h.rdb, Store: h.store, Engine: h.engine, Prefix: h.prefix,
		Consumer: consumer, DrainTimeout: 5 * time.Second, ClaimIdle: 50 * time.Millisecond})
}

func (h *harness) cleanRedis() {
	ctx := context.Background()
	iter := h.rdb.Scan(ctx, 0, h.prefix+"*", 1000).Iterator()
	for iter.Next(ctx) {
		_ = h.rdb.Del(ctx, iter.Val()).Err()
	}
}

func (h *harness) key() string { return fmt.Sprintf("k%d", h.keys.Add(1)) }

// ok submits op through the engine and fails the test on any refusal.
func (h *harness) ok(op stockd.Operation) stockd.Result {
	h.t.Helper()
	res, err := h.engine.Submit(context.Background(), stockd.Command{Op: op, IdempotencyKey: h.key(), RequestHash: "h", Actor: "test"})
	if err != nil || res.Err != nil {
		h.t.Fatalf("%T: %v %v", op, err, res.Err)
	}
	return res
}

func (h *harness) preheat() {
	h.t.Helper()
	res, err := h.gate.Preheat(context.Background(), stockd.Command{Op: &stockd.GatePreheat{Pool: pool}, IdempotencyKey: h.key(), RequestHash: "h", Actor: "test"})
	if err != nil || res.Err != nil {
		h.t.Fatalf("preheat: %v %v", err, res.Err)
	}
}

// reserve sends one gated reservation as the HTTP layer does: normalized,
// then through the gate.
func (h *harness) reserve(key, customer string, lines map[string]int64) stockd.Result {
	h.t.Helper()
	return h.reserveTTL(key, customer, lines, 0)
}

// reserveTTL is reserve with a deadline (0: the default).
func (h *harness) reserveTTL(key, customer string, lines map[string]int64, ttl time.Duration) stockd.Result {
	h.t.Helper()
	r := &stockd.Reserve{CustomerID: customer, TTL: ttl}
	for sku, q := range lines {
		r.Lines = append(r.Lines, stockd.LineRequest{SKU: sku, Location: "east", Pool: pool, Quantity: q})
	}
	cmd := stockd.Command{Op: r, IdempotencyKey: key, RequestHash: fmt.Sprint(lines, customer), Actor: "test"}
	if err := cmd.Normalize(); err != nil {
		h.t.Fatalf("normalize: %v", err)
	}
	p, gated, err := h.gate.Gated(context.Background(), r)
	if err != nil || !gated {
		h.t.Fatalf("gated: %v %v", gated, err)
	}
	res, err := h.gate.Reserve(context.Background(), cmd, p)
	if err != nil {
		h.t.Fatalf("reserve: %v", err)
	}
	return res
}

// drain persists until nothing is in flight.
func (h *harness) drain(g *gate.Gate) {
	h.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := g.PersistOnce(context.Background(), []string{pool}, 10*time.Millisecond); err != nil {
			h.t.Fatalf("persist: %v", err)
		}
		rep := h.reconcile()
		pending := int64(0)
		for _, p := range rep.Positions {
			pending += p.Pending
		}
		if pending == 0 {
			return
		}
	}
	h.t.Fatal("persister did not drain in 30 s")
}

func (h *harness) reconcile() gate.Report {
	h.t.Helper()
	rep, err := h.gate.Reconcile(context.Background(), pool)
	if err != nil {
		h.t.Fatalf("reconcile: %v", err)
	}
	return rep
}

// poolPosition is the database's counters of sku in the pool.
func (h *harness) poolPosition(sku string) stockd.Position {
	h.t.Helper()
	ps, err := h.store.PositionListBySKU(context.Background(), sku)
	if err != nil {
		h.t.Fatal(err)
	}
	for _, p := range ps {
		if p.Pool == pool {
			return p
		}
	}
	h.t.Fatalf("no %s position in pool %s", sku, pool)
	return stockd.Position{}
}

func code(res stockd.Result) string {
	if res.Err == nil {
		return ""
	}
	return res.Err.Code
}

func decodeJSON(b []byte, v any) error { return json.Unmarshal(b, v) }
