package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// poolsPaths are the documented paths of pools.json, for the coverage
// check of exercisePools.
var poolsPaths = []string{
	"/v1/pools", "/v1/pools/{pool}", "/v1/allocations", "/v1/campaigns/{pool}/close",
	"/v1/locations/{location}", "/v1/skus/{sku}", "/v1/approvals", "/v1/approvals/{id}",
	"/v1/approvals/{id}/approve", "/v1/approvals/{id}/reject",
}

// as returns headers for a request by actor under key.
func as(actor, key string) map[string]string {
	return map[string]string{headerActor: actor, headerIdempotencyKey: key}
}

// mustAs is must with an actor.
func (h *harness) mustAs(actor, method, path, key, body string, want int, out any) answer {
	h.t.Helper()
	a := h.sendHeaders(method, path, []byte(body), as(actor, key))
	if a.status != want {
		h.t.Fatalf("%s %s %s as %s: status %d, want %d: %s", method, path, body, actor, a.status, want, a.body)
	}
	if out != nil {
		if err := json.Unmarshal(a.body, out); err != nil {
			h.t.Fatalf("%s %s: decode %s: %v", method, path, a.body, err)
		}
	}
	return a
}

// wantCode fails unless a is a problem with code.
func (a answer) wantCode(t *testing.T, code string) {
	t.Helper()
	if p := a.problem(t); p.Code != code {
		t.Fatalf("answer %d code %q, want %q: %s", a.status, p.Code, code, a.body)
	}
}

// exercisePools drives every endpoint of pools.json to every answer it
// documents (but the 401, 403 and 429 of access control, which
// exerciseKeys and exerciseRateLimits give every route), asserting what
// each answer means. It uses its own SKU (PA), location (PL) and keys, so
// TestOpenAPIResponses can run it beside its own requests.
func exercisePools(h *harness) {
	t := h.t
	t.Helper()
	h.must("POST", "/v1/skus", "pools-sku", `{"sku":"PA"}`, http.StatusCreated, nil)
	h.must("POST", "/v1/locations", "pools-location", `{"location":"PL","priority":3}`, http.StatusCreated, nil)
	h.must("POST", "/v1/receipts", "pools-receipt", `{"sku":"PA","location":"PL","quantity":50}`, http.StatusOK, nil)

	// Pools.
	now := h.clock.Now().UTC()
	campaign := fmt.Sprintf(`{"pool":"pools-sale","kind":"campaign","name":"Sale","starts_at":%q,"ends_at":%q}`,
		now.Add(-time.Hour).Format(time.RFC3339), now.Add(24*time.Hour).Format(time.RFC3339))
	var sale Pool
	h.must("POST", "/v1/pools", "pools-create-sale", campaign, http.StatusCreated, &sale)
	if sale.Kind != stockd.PoolCampaign || sale.EndsAt == nil || sale.ClosedAt != nil {
		t.Fatalf("created campaign %+v", sale)
	}
	h.must("POST", "/v1/pools", "pools-create-sale", campaign, http.StatusCreated, nil)
	h.must("POST", "/v1/pools", "pools-create-web", `{"pool":"pools-web","kind":"channel","fallback_to_normal":true}`, http.StatusCreated, nil)
	h.must("POST", "/v1/pools", "pools-create-again", `{"pool":"pools-web","kind":"channel"}`, http.StatusConflict, nil).wantCode(t, stockd.CodeAlreadyExists)
	h.must("POST", "/v1/pools", "pools-create-normal", `{"pool":"normal","kind":"channel"}`, http.StatusConflict, nil).wantCode(t, stockd.CodeAlreadyExists)
	h.must("POST", "/v1/pools", "pools-create-bad", `{"pool":"x","kind":"other"}`, http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	h.must("POST", "/v1/pools", "pools-create-window", fmt.Sprintf(`{"pool":"x","kind":"campaign","starts_at":%q,"ends_at":%q}`,
		now.Format(time.RFC3339), now.Format(time.RFC3339)), http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	var pools PoolList
	h.must("GET", "/v1/pools", "", "", http.StatusOK, &pools)
	if len(pools.Pools) < 2 {
		t.Fatalf("pools = %+v, want both", pools)
	}
	h.must("GET", "/v1/pools?limit=1", "", "", http.StatusOK, &pools)
	if len(pools.Pools) != 1 || pools.NextAfter == "" {
		t.Fatalf("first page = %+v, want one pool and a cursor", pools)
	}
	h.must("GET", "/v1/pools?limit=1000&after="+pools.NextAfter, "", "", http.StatusOK, nil)
	h.must("GET", "/v1/pools?limit=0", "", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/pools/pools-sale", "", "", http.StatusOK, nil)
	h.must("GET", "/v1/pools/nowhere", "", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
	h.must("GET", "/v1/pools/a%3Bb", "", "", http.StatusBadRequest, nil)

	// Allocations.
	var alloc Allocation
	h.must("POST", "/v1/allocations", "pools-alloc", `{"sku":"PA","location":"PL","to_pool":"pools-sale","quantity":20,"reference":"promo"}`, http.StatusOK, &alloc)
	if alloc.From.OnHand != 30 || alloc.To.OnHand != 20 || alloc.To.Pool != "pools-sale" || alloc.FromPool != stockd.PoolDefault {
		t.Fatalf("allocation = %+v", alloc)
	}
	if a := h.must("POST", "/v1/allocations", "pools-alloc", `{"sku":"PA","location":"PL","to_pool":"pools-sale","quantity":20,"reference":"promo"}`, http.StatusOK, nil); a.header.Get(headerReplayed) != "true" {
		t.Fatal("a retried allocation was not a replay")
	}
	h.must("POST", "/v1/allocations", "pools-alloc-short", `{"sku":"PA","location":"PL","to_pool":"pools-web","quantity":31}`, http.StatusConflict, nil).wantCode(t, stockd.CodeInsufficientStock)
	h.must("POST", "/v1/allocations", "pools-alloc-nowhere", `{"sku":"PA","location":"PL","to_pool":"nowhere","quantity":1}`, http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
	h.must("POST", "/v1/allocations", "pools-alloc-no-qty", `{"sku":"PA","to_pool":"pools-web"}`, http.StatusBadRequest, nil)

	// A hold in the campaign, then the close.
	var held Reservation
	h.must("POST", "/v1/reservations", "pools-hold", `{"lines":[{"sku":"PA","location":"PL","pool":"pools-sale","quantity":5}]}`, http.StatusCreated, &held)
	var closed Pool
	h.must("POST", "/v1/campaigns/pools-sale/close", "pools-close", "", http.StatusOK, &closed)
	if closed.ClosedAt == nil {
		t.Fatalf("closed = %+v", closed)
	}
	h.must("POST", "/v1/campaigns/pools-sale/close", "pools-close-again", "{}", http.StatusOK, nil)
	var stock Stock
	h.must("GET", "/v1/stock/PA", "", "", http.StatusOK, &stock)
	for _, p := range stock.Positions {
		want := map[string]int64{stockd.PoolDefault: 45, "pools-sale": 5}[p.Pool]
		if p.OnHand != want {
			t.Fatalf("after the close %s holds %d, want %d: %+v", p.Pool, p.OnHand, want, stock)
		}
	}
	h.must("POST", "/v1/allocations", "pools-alloc-closed", `{"sku":"PA","location":"PL","to_pool":"pools-sale","quantity":1}`, http.StatusConflict, nil).wantCode(t, stockd.CodeCampaignNotActive)
	h.must("POST", "/v1/campaigns/pools-web/close", "pools-close-channel", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
	h.must("POST", "/v1/campaigns/nowhere/close", "pools-close-nowhere", "", http.StatusNotFound, nil)
	h.must("POST", "/v1/campaigns/a%3Bb/close", "pools-close-bad", "", http.StatusBadRequest, nil)
	h.must("POST", "/v1/reservations/"+held.ID+"/release", "pools-release", "", http.StatusOK, nil)

	// Settings.
	var loc Location
	h.must("PATCH", "/v1/locations/PL", "pools-loc", `{"active":false,"priority":7,"name":"Back"}`, http.StatusOK, &loc)
	if loc.Active || loc.Priority != 7 || loc.Name != "Back" {
		t.Fatalf("location = %+v", loc)
	}
	var locations LocationList
	h.must("GET", "/v1/locations", "", "", http.StatusOK, &locations)
	for _, l := range locations.Locations {
		if l.Location == "PL" && l.Active {
			t.Fatal("GET /v1/locations shows PL active")
		}
	}
	h.must("PATCH", "/v1/locations/PL", "pools-loc-on", `{"active":true}`, http.StatusOK, nil)
	h.must("PATCH", "/v1/locations/nowhere", "pools-loc-nowhere", `{"active":true}`, http.StatusNotFound, nil).wantCode(t, stockd.CodeUnknownLocation)
	h.must("PATCH", "/v1/locations/PL", "pools-loc-empty", `{}`, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeUnprocessable)
	h.must("PATCH", "/v1/locations/PL", "pools-loc-bad", `{"priority":-1}`, http.StatusBadRequest, nil)
	var sku SKU
	h.must("PATCH", "/v1/skus/PA", "pools-sku-threshold", `{"approval_threshold":10,"name":"Pool test"}`, http.StatusOK, &sku)
	if sku.ApprovalThreshold != 10 || sku.Name != "Pool test" || sku.Deduction != stockd.DeductionAtOrder {
		t.Fatalf("sku = %+v", sku)
	}
	h.must("PATCH", "/v1/skus/nowhere", "pools-sku-nowhere", `{"name":"x"}`, http.StatusNotFound, nil).wantCode(t, stockd.CodeUnknownSKU)
	h.must("PATCH", "/v1/skus/PA", "pools-sku-empty", `{}`, http.StatusUnprocessableEntity, nil)
	h.must("PATCH", "/v1/skus/PA", "pools-sku-bad", `{"deduction":"never"}`, http.StatusBadRequest, nil)

	// Approvals: above the threshold of 10, an adjustment waits.
	var pending, other Approval
	h.mustAs("clerk", "POST", "/v1/adjustments", "pools-adjust", `{"sku":"PA","location":"PL","reason":"found","delta":11}`, http.StatusAccepted, &pending)
	if pending.Status != stockd.ApprovalPending || pending.RequestedBy != "clerk" || pending.OnHandChange != 11 {
		t.Fatalf("pending = %+v", pending)
	}
	h.mustAs("clerk", "POST", "/v1/adjustments", "pools-adjust", `{"sku":"PA","location":"PL","reason":"found","delta":11}`, http.StatusAccepted, nil)
	h.mustAs("clerk", "POST", "/v1/adjustments", "pools-adjust-2", `{"sku":"PA","location":"PL","reason":"loss","delta":-20}`, http.StatusAccepted, &other)
	var list ApprovalList
	h.must("GET", "/v1/approvals?status=pending", "", "", http.StatusOK, &list)
	if len(list.Approvals) < 2 {
		t.Fatalf("pending approvals = %+v, want both", list)
	}
	h.must("GET", "/v1/approvals?status=maybe", "", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/approvals/"+pending.ID, "", "", http.StatusOK, nil)
	h.must("GET", "/v1/approvals/nope", "", "", http.StatusNotFound, nil)
	h.must("GET", "/v1/approvals/a%3Bb", "", "", http.StatusBadRequest, nil)

	approve := "/v1/approvals/" + pending.ID + "/approve"
	h.mustAs("clerk", "POST", approve, "pools-self", "", http.StatusForbidden, nil).wantCode(t, stockd.CodeSelfApproval)
	var approved Approval
	h.mustAs("boss", "POST", approve, "pools-approve", "", http.StatusOK, &approved)
	if approved.Status != stockd.ApprovalApproved || approved.DecidedBy != "boss" {
		t.Fatalf("approved = %+v", approved)
	}
	h.mustAs("boss", "POST", approve, "pools-approve-again", "{}", http.StatusOK, nil)
	h.mustAs("boss", "POST", "/v1/approvals/nope/approve", "pools-approve-nope", "", http.StatusNotFound, nil)
	h.mustAs("boss", "POST", "/v1/approvals/a%3Bb/approve", "pools-approve-bad", "", http.StatusBadRequest, nil)
	reject := "/v1/approvals/" + other.ID + "/reject"
	// Hold 45 of the 50 + 11 on hand: taking 20 away no longer fits.
	h.must("POST", "/v1/reservations", "pools-hold-2", `{"lines":[{"sku":"PA","location":"PL","quantity":45}]}`, http.StatusCreated, nil)
	h.mustAs("boss", "POST", "/v1/approvals/"+other.ID+"/approve", "pools-approve-short", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInsufficientStock)
	h.mustAs("boss", "POST", reject, "pools-reject", "", http.StatusOK, nil)
	h.mustAs("boss", "POST", reject, "pools-reject-again", "", http.StatusOK, nil)
	h.mustAs("boss", "POST", "/v1/approvals/"+pending.ID+"/reject", "pools-reject-approved", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
	h.mustAs("boss", "POST", "/v1/approvals/"+other.ID+"/approve", "pools-approve-rejected", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
	h.mustAs("boss", "POST", "/v1/approvals/nope/reject", "pools-reject-nope", "", http.StatusNotFound, nil)
	h.mustAs("boss", "POST", "/v1/approvals/a%3Bb/reject", "pools-reject-bad", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/stock/PA", "", "", http.StatusOK, &stock)
	if stock.Totals.OnHand != 61 {
		t.Fatalf("on_hand %d, want 50 + 11 (approved) and not -20 (rejected)", stock.Totals.OnHand)
	}

	// What every mutation shares.
	for _, m := range []struct {
		method, path, body string
		status             int
		// otherPath is another request of the same route, for the
		// idempotency key reused under it.
		otherPath, otherBody string
	}{
		{"POST", "/v1/pools", `{"pool":"pools-shared","kind":"channel"}`, http.StatusCreated, "/v1/pools", `{"pool":"pools-other","kind":"channel"}`},
		{"POST", "/v1/allocations", `{"sku":"PA","location":"PL","to_pool":"pools-web","quantity":1}`, http.StatusOK, "/v1/allocations", `{"sku":"PA","location":"PL","to_pool":"pools-web","quantity":2}`},
		{"POST", "/v1/campaigns/pools-sale/close", "", http.StatusOK, "/v1/campaigns/pools-web/close", ""},
		{"PATCH", "/v1/locations/PL", `{"priority":1}`, http.StatusOK, "/v1/locations/PL", `{"priority":2}`},
		{"PATCH", "/v1/skus/PA", `{"name":"shared"}`, http.StatusOK, "/v1/skus/PA", `{"name":"other"}`},
		{"POST", approve, "", http.StatusOK, "/v1/approvals/" + other.ID + "/approve", ""},
		{"POST", reject, "", http.StatusOK, "/v1/approvals/" + pending.ID + "/reject", ""},
	} {
		name := strings.NewReplacer("/", "-", "{", "", "}", "").Replace(m.method + m.path)
		for _, fault := range []string{faultInternal, faultCancelled, faultOverloaded} {
			h.sendHeaders(m.method, m.path, []byte(m.body), map[string]string{headerIdempotencyKey: "pools-fault-" + fault + name, headerTestFault: fault, headerActor: "boss"})
		}
		h.mustAs("boss", m.method, m.path, "pools-reused"+name, m.body, m.status, nil)
		h.mustAs("boss", m.method, m.otherPath, "pools-reused"+name, m.otherBody, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeIdempotencyKeyReused)
		h.mustAs("boss", m.method, m.path, "", m.body, http.StatusBadRequest, nil).wantCode(t, stockd.CodeIdempotencyKeyMissing)
		h.mustAs("boss", m.method, m.path, "pools-large"+name, `{"reference":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	}
	for _, path := range []string{"/v1/pools", "/v1/pools/pools-sale", "/v1/approvals", "/v1/approvals/" + pending.ID} {
		for _, fault := range []string{faultInternal, faultCancelled} {
			h.sendHeaders("GET", path, nil, map[string]string{headerTestFault: fault})
		}
	}
}

// TestPoolsEndpoints runs exercisePools and checks that it showed every
// answer pools.json documents, but those of access control.
func TestPoolsEndpoints(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		exercisePools(h)
		seen := map[string]bool{}
		for _, ex := range h.recorded() {
			seen[ex.pattern+" "+strconv.Itoa(ex.status)] = true
		}
		c := loadContract(t)
		for _, path := range poolsPaths {
			item, _ := c.lookup("paths", path)
			for method, op := range item {
				if method == "get" && path == "/v1/skus/{sku}" {
					continue // the core's, not pools.json's
				}
				for status := range op.(map[string]any)["responses"].(map[string]any) {
					key := strings.ToUpper(method) + " " + path + " " + status
					if status == "401" || status == "403" && method == "get" || status == "429" && method == "get" {
						continue
					}
					if status == "403" && !strings.HasSuffix(path, "/approve") {
						continue
					}
					if !seen[key] {
						t.Errorf("never answered: %s", key)
					}
				}
			}
		}
		if !seen["POST /v1/adjustments 202"] {
			t.Error("never answered: POST /v1/adjustments 202")
		}
	})
}

// TestApprovalExpires: a decision after expires_at marks the approval
// expired and is refused.
func TestApprovalExpires(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(0, "A")
		var ap Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "big", `{"sku":"A","reason":"found","delta":500}`, http.StatusAccepted, &ap)
		h.clock.Advance(stockd.ApprovalTTL)
		h.mustAs("boss", "POST", "/v1/approvals/"+ap.ID+"/approve", "late", "", http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
		h.must("GET", "/v1/approvals/"+ap.ID, "", "", http.StatusOK, &ap)
		if ap.Status != stockd.ApprovalExpired || ap.DecidedAt == nil {
			t.Fatalf("approval = %+v, want expired", ap)
		}
		var list ApprovalList
		h.must("GET", "/v1/approvals?status=pending", "", "", http.StatusOK, &list)
		if len(list.Approvals) != 0 {
			t.Fatalf("pending = %+v, want none", list)
		}
	})
}

// TestApprovalKeys: with API keys, the requester is the key; its own
// approve-scoped key cannot approve, another can; an approve key is needed.
func TestApprovalKeys(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		clerkKey, clerk := h.storeKey("clerk", stockd.ScopeStock, stockd.ScopeApprove)
		bossKey, boss := h.storeKey("boss", stockd.ScopeApprove, stockd.ScopeRead)
		var ap Approval
		a := h.expect("POST", "/v1/adjustments", `{"sku":"A","reason":"found","delta":101}`, http.StatusAccepted, bearer(clerk, headerIdempotencyKey, "big"))
		if err := json.Unmarshal(a.body, &ap); err != nil {
			t.Fatal(err)
		}
		path := "/v1/approvals/" + ap.ID + "/approve"
		h.expect("POST", path, "", http.StatusForbidden, bearer(clerk, headerIdempotencyKey, "self")).wantCode(t, stockd.CodeSelfApproval)
		// Naming another actor does not make the same key someone else.
		h.expect("POST", path, "", http.StatusForbidden, bearer(clerk, headerIdempotencyKey, "self-as-boss", headerActor, "boss")).wantCode(t, stockd.CodeSelfApproval)
		var masked Approval
		a = h.expect("POST", "/v1/adjustments", `{"sku":"A","reason":"found","delta":102}`, http.StatusAccepted, bearer(clerk, headerIdempotencyKey, "big-masked", headerActor, "bob"))
		if err := json.Unmarshal(a.body, &masked); err != nil {
			t.Fatal(err)
		}
		h.expect("POST", "/v1/approvals/"+masked.ID+"/approve", "", http.StatusForbidden, bearer(clerk, headerIdempotencyKey, "self-unmasked")).wantCode(t, stockd.CodeSelfApproval)
		h.expect("POST", path, "", http.StatusOK, bearer(boss, headerIdempotencyKey, "ok"))
		var page LedgerPage
		a = h.expect("GET", "/v1/ledger?sku=A", "", http.StatusOK, bearer(boss))
		if err := json.Unmarshal(a.body, &page); err != nil {
			t.Fatal(err)
		}
		e := page.Entries[len(page.Entries)-1]
		if e.Type != stockd.BusinessAdjustment || e.BusinessID != ap.ID || e.Actor != clerkKey.ID || e.Approver != bossKey.ID || e.Reason != stockd.ReasonFound {
			t.Fatalf("ledger entry = %+v, want the adjustment by %s approved by %s", e, clerkKey.ID, bossKey.ID)
		}
	})
}

// TestApprovalRaceHTTP: two approvers approving one pending adjustment at
// once apply it once.
func TestApprovalRaceHTTP(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		var ap Approval
		h.mustAs("clerk", "POST", "/v1/adjustments", "big", `{"sku":"A","reason":"found","delta":500}`, http.StatusAccepted, &ap)
		var wg sync.WaitGroup
		statuses := make([]int, 8)
		for i := range statuses {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a, err := h.trySend("POST", "/v1/approvals/"+ap.ID+"/approve", nil, as(fmt.Sprintf("boss-%d", i), fmt.Sprintf("approve-%d", i)))
				if err == nil {
					statuses[i] = a.status
				}
			}()
		}
		wg.Wait()
		for i, s := range statuses {
			if s != http.StatusOK {
				t.Errorf("approval %d: status %d, want 200", i, s)
			}
		}
		var stock Stock
		h.must("GET", "/v1/stock/A", "", "", http.StatusOK, &stock)
		if stock.Totals.OnHand != 510 {
			t.Fatalf("on_hand %d, want 510: the adjustment applied once", stock.Totals.OnHand)
		}
	})
}

// TestPoolsClient drives the pool endpoints through Client.
func TestPoolsClient(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(300, "A")
		ctx := t.Context()
		clerk := NewClient(h.url, WithHTTPClient(h.http), WithActor("clerk"))
		boss := NewClient(h.url, WithHTTPClient(h.http), WithActor("boss"))
		now := h.clock.Now()
		starts, ends := now.Add(-time.Hour), now.Add(time.Hour)
		if _, err := boss.CreatePool(ctx, CreatePoolParams{Pool: "sale", Kind: stockd.PoolCampaign, StartsAt: &starts, EndsAt: &ends}); err != nil {
			t.Fatal(err)
		}
		if _, err := boss.CreatePool(ctx, CreatePoolParams{Pool: "sale", Kind: stockd.PoolChannel}); stockd.ErrorCode(err) != stockd.CodeAlreadyExists {
			t.Fatalf("second create: %v, want already_exists", err)
		}
		alloc, err := boss.Allocate(ctx, AllocateParams{IdempotencyKey: "alloc", SKU: "A", ToPool: "sale", Quantity: 100})
		if err != nil || alloc.To.OnHand != 100 || alloc.From.OnHand != 200 {
			t.Fatalf("allocate: %+v, %v", alloc, err)
		}
		if again, err := boss.Allocate(ctx, AllocateParams{IdempotencyKey: "alloc", SKU: "A", ToPool: "sale", Quantity: 100}); err != nil || !again.Replayed {
			t.Fatalf("allocate again: %+v, %v, want a replay", again, err)
		}
		if p, err := boss.CloseCampaign(ctx, "", "sale"); err != nil || p.ClosedAt == nil {
			t.Fatalf("close: %+v, %v", p, err)
		}
		if p, err := boss.GetPool(ctx, "sale"); err != nil || p.ClosedAt == nil {
			t.Fatalf("get: %+v, %v", p, err)
		}
		if list, err := boss.Pools(ctx, "", 10); err != nil || len(list.Pools) != 1 {
			t.Fatalf("pools: %+v, %v", list, err)
		}
		active, threshold := false, int64(5)
		if l, err := boss.UpdateLocation(ctx, UpdateLocationParams{Location: stockd.LocationDefault, Active: &active}); err != nil || l.Active {
			t.Fatalf("update location: %+v, %v", l, err)
		}
		if s, err := boss.UpdateSKU(ctx, UpdateSKUParams{SKU: "A", ApprovalThreshold: &threshold}); err != nil || s.ApprovalThreshold != 5 {
			t.Fatalf("update sku: %+v, %v", s, err)
		}
		h.mustAs("clerk", "POST", "/v1/adjustments", "big", `{"sku":"A","reason":"found","delta":6}`, http.StatusAccepted, nil)
		list, err := boss.Approvals(ctx, stockd.ApprovalPending, "", 0)
		if err != nil || len(list.Approvals) != 1 {
			t.Fatalf("approvals: %+v, %v", list, err)
		}
		id := list.Approvals[0].ID
		if _, err := clerk.Approve(ctx, "", id); stockd.ErrorCode(err) != stockd.CodeSelfApproval {
			t.Fatalf("self approval: %v, want self_approval", err)
		}
		if ap, err := boss.Approve(ctx, "", id); err != nil || ap.Status != stockd.ApprovalApproved {
			t.Fatalf("approve: %+v, %v", ap, err)
		}
		if _, err := boss.Reject(ctx, "", id); stockd.ErrorCode(err) != stockd.CodeInvalidTransition {
			t.Fatalf("reject approved: %v, want invalid_transition", err)
		}
		if ap, err := boss.GetApproval(ctx, id); err != nil || ap.DecidedBy != "boss" {
			t.Fatalf("get approval: %+v, %v", ap, err)
		}
	})
}
