package httpapi

import (
	"context"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/internal/testdb"
)

// withGate gives the server a Redis gate under a key prefix of the test's
// own (deleted when it ends) when STOCKD_TEST_REDIS_URL is set; *g is nil
// otherwise.
func withGate(t *testing.T, g **gate.Gate, prefix *string) func(*Config) {
	return func(cfg *Config) {
		url := os.Getenv("STOCKD_TEST_REDIS_URL")
		if url == "" {
			t.Log("STOCKD_TEST_REDIS_URL not set: the server runs without a gate")
			return
		}
		opts, err := redis.ParseURL(url)
		if err != nil {
			t.Fatal(err)
		}
		rdb := redis.NewClient(opts)
		*prefix = "stockd-test:" + uuid.NewString() + ":"
		t.Cleanup(func() {
			ctx := context.Background()
			iter := rdb.Scan(ctx, 0, *prefix+"*", 1000).Iterator()
			for iter.Next(ctx) {
				_ = rdb.Del(ctx, iter.Val()).Err()
			}
			_ = rdb.Close()
		})
		*g = gate.New(gate.Config{Client: rdb, Store: cfg.Store, Engine: cfg.Engine, Prefix: *prefix, Now: cfg.Now,
			Logger: cfg.Logger, DrainTimeout: 2 * time.Second})
		cfg.Gate = *g
	}
}

// gateOperations are what the document says of the gate alone: a server
// without Redis cannot answer them all.
func gateOnly(missing string) bool {
	for _, s := range []string{"/preheat", "/reconciliation", "/v1/gate/", "gate_", "reservation_not_persisted"} {
		if strings.Contains(missing, s) {
			return true
		}
	}
	return false
}

// exerciseGate drives a flash sale through the gate: preheat, a win
// answered before the database holds it, a confirm that must wait, the
// persister, a win the database refuses (an exception that closes the
// position), reconciliation and the close.
func exerciseGate(h *harness, g *gate.Gate, prefix string) {
	t := h.t
	ctx := context.Background()
	persist := func() {
		for range 50 {
			n, err := g.PersistOnce(ctx, []string{"gate-sale"}, 10*time.Millisecond)
			if err != nil {
				t.Fatalf("persist: %v", err)
			}
			if n == 0 {
				return
			}
		}
	}
	now := h.clock.Now()
	window := `"starts_at":"` + now.Add(-time.Hour).Format(time.RFC3339) + `","ends_at":"` + now.Add(24*time.Hour).Format(time.RFC3339) + `"`
	h.seed(10, "G")
	h.must("POST", "/v1/pools", "gate-pool", `{"pool":"gate-sale","kind":"campaign","gate":"redis",`+window+`}`, http.StatusCreated, nil)
	h.must("POST", "/v1/pools", "gate-plain", `{"pool":"gate-plain","kind":"campaign",`+window+`}`, http.StatusCreated, nil)
	h.must("POST", "/v1/allocations", "gate-alloc", `{"sku":"G","location":"default","to_pool":"gate-sale","quantity":3}`, http.StatusOK, nil)
	var led Pool
	h.must("POST", "/v1/pools", "gate-lead", `{"pool":"gate-lead","kind":"campaign","gate":"redis","preheat_lead_seconds":600,`+window+`}`, http.StatusCreated, &led)
	if led.PreheatLeadSeconds != 600 {
		t.Fatalf("pool with a preheat lead: %+v", led)
	}
	h.must("POST", "/v1/pools", "gate-lead-long", `{"pool":"gate-lead2","kind":"campaign","gate":"redis","preheat_lead_seconds":86401,`+window+`}`, http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)

	var st GateState
	h.must("POST", "/v1/campaigns/gate-sale/preheat", "gate-preheat", "", http.StatusOK, &st)
	if len(st.Positions) != 1 || st.Positions[0].Quantity != 3 {
		t.Fatalf("preheat: %+v", st)
	}
	h.must("POST", "/v1/campaigns/gate-sale/preheat", "gate-preheat", "", http.StatusOK, nil)
	preheat := "/v1/campaigns/gate-sale/preheat"
	for _, fault := range []string{faultInternal, faultCancelled, faultOverloaded, faultTimeout, faultDown, faultHalted} {
		h.sendHeaders("POST", preheat, nil, map[string]string{headerIdempotencyKey: "gate-fault-" + fault, headerTestFault: fault})
	}
	h.must("POST", preheat, "", "", http.StatusBadRequest, nil)
	h.must("POST", preheat, "gate-too-large", `{"reference":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	for _, path := range []string{"/v1/campaigns/gate-sale/reconciliation", "/v1/gate/exceptions"} {
		for _, fault := range []string{faultInternal, faultCancelled, faultTimeout, faultDown} {
			h.sendHeaders("GET", path, nil, map[string]string{headerTestFault: fault})
		}
		h.must("GET", path+"?bogus=1", "", "", http.StatusBadRequest, nil)
	}
	h.must("POST", "/v1/campaigns/nowhere/preheat", "gate-preheat-nowhere", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
	h.must("POST", "/v1/campaigns/gate-plain/preheat", "gate-preheat-plain", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
	h.must("POST", "/v1/campaigns/gate-plain/preheat", "gate-preheat", "", http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeIdempotencyKeyReused)

	line := `{"lines":[{"sku":"G","quantity":1,"location":"default","pool":"gate-sale"}]}`
	var won Reservation
	h.must("POST", "/v1/reservations", "gate-r1", line, http.StatusCreated, &won)
	if won.Status != string(stockd.StatusPending) {
		t.Fatalf("gated win: %+v", won)
	}
	if a := h.must("POST", "/v1/reservations", "gate-r1", line, http.StatusCreated, nil); a.header.Get(headerReplayed) != "true" {
		t.Fatal("a gated retry is not marked replayed")
	}
	h.must("POST", "/v1/reservations/"+won.ID+"/confirm", "gate-confirm-early", "", http.StatusServiceUnavailable, nil).wantCode(t, stockd.CodeNotPersisted)
	// The stock answer shows the gate ahead of the database: 2 remain in
	// Redis, 1 in flight, while the database still holds 3 available.
	var stock bundleStock
	h.must("GET", "/v1/stock/G", "", "", http.StatusOK, &stock)
	if len(stock.Gate) != 1 {
		t.Fatalf("stock of a gated SKU: gate %+v", stock.Gate)
	}
	if v := stock.Gate[0]; v.Source != "redis" || v.State != gate.ViewOpen || v.Pool != "gate-sale" || v.Remaining == nil || *v.Remaining != 2 || *v.InFlight != 1 {
		t.Fatalf("gate view: %+v", v)
	}
	persist()
	var confirmed Reservation
	h.must("POST", "/v1/reservations/"+won.ID+"/confirm", "gate-confirm", "", http.StatusOK, &confirmed)
	if confirmed.ID != won.ID || confirmed.Status != string(stockd.StatusConfirmed) {
		t.Fatalf("confirm of the gated win: %+v", confirmed)
	}

	// Stock taken from the pool behind the gate's back: the gate still
	// sells 2, the database holds 1.
	h.must("POST", "/v1/allocations", "gate-alloc-back", `{"sku":"G","location":"default","from_pool":"gate-sale","to_pool":"normal","quantity":1}`, http.StatusOK, nil)
	var rep Reconciliation
	h.must("GET", "/v1/campaigns/gate-sale/reconciliation", "", "", http.StatusOK, &rep)
	if !rep.Drifted || rep.Positions[0].Drift != -1 {
		t.Fatalf("reconciliation: %+v, want a drift of -1", rep)
	}
	h.must("POST", "/v1/reservations", "gate-r2", line, http.StatusCreated, nil)
	h.must("POST", "/v1/reservations", "gate-r3", line, http.StatusCreated, nil)
	persist()
	var exceptions GateExceptionList
	h.must("GET", "/v1/gate/exceptions", "", "", http.StatusOK, &exceptions)
	if len(exceptions.Exceptions) != 1 || exceptions.Exceptions[0].Code != stockd.CodeInsufficientStock {
		t.Fatalf("exceptions: %+v", exceptions)
	}
	h.must("POST", "/v1/reservations", "gate-r4", line, http.StatusConflict, nil).wantCode(t, stockd.CodeGateClosed)
	h.must("GET", "/v1/campaigns/gate-plain/reconciliation", "", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)

	// A gate paused (as a preheat pauses it) answers retry later.
	opts, err := redis.ParseURL(os.Getenv("STOCKD_TEST_REDIS_URL"))
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	paused := prefix + "{gate-sale}:paused"
	if err := rdb.Set(ctx, paused, "a-preheat", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	h.must("POST", "/v1/reservations", "gate-r5", line, http.StatusServiceUnavailable, nil).wantCode(t, stockd.CodeGateUnavailable)
	h.must("POST", "/v1/campaigns/gate-sale/close", "gate-close", "", http.StatusOK, nil)
	// Closed and shut: final, not retryable, even while a pause lasts.
	h.must("POST", "/v1/reservations", "gate-r6", line, http.StatusConflict, nil).wantCode(t, stockd.CodeCampaignNotActive)
	rdb.Del(ctx, paused)
	h.must("POST", "/v1/campaigns/gate-sale/preheat", "gate-preheat-closed", "", http.StatusConflict, nil).wantCode(t, stockd.CodeCampaignNotActive)
}

// exerciseNoGate is a server without Redis refusing what needs one.
func exerciseNoGate(t *testing.T, b testdb.Backend) []exchange {
	h := newHarness(t, b)
	h.must("POST", "/v1/pools", "nogate-pool", `{"pool":"nogate","kind":"campaign","gate":"redis","starts_at":"2026-01-01T00:00:00Z","ends_at":"2027-01-01T00:00:00Z"}`, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeUnprocessable)
	h.must("POST", "/v1/campaigns/nogate/preheat", "nogate-preheat", "", http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeUnprocessable)
	h.must("GET", "/v1/campaigns/nogate/reconciliation", "", "", http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeUnprocessable)
	return h.recorded()
}
