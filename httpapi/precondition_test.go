package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// patchIf sends a PATCH with If-Match (none when ifMatch is empty) that
// must answer want.
func (h *harness) patchIf(path, key, body, ifMatch string, want int) answer {
	h.t.Helper()
	a := h.sendHeaders("PATCH", path, []byte(body), map[string]string{headerIdempotencyKey: key, headerIfMatch: ifMatch})
	if a.status != want {
		h.t.Fatalf("PATCH %s %s If-Match %s: status %d, want %d: %s", path, body, ifMatch, a.status, want, a.body)
	}
	return a
}

// etagOf reads the ETag of a GET.
func (h *harness) etagOf(path string, out any) string {
	h.t.Helper()
	a := h.must("GET", path, "", "", http.StatusOK, out)
	tag := a.header.Get(headerETag)
	if tag == "" {
		h.t.Fatalf("GET %s: no ETag", path)
	}
	return tag
}

// exercisePreconditions drives If-Match on each settings endpoint: the
// GET's ETag lets one change through, the same ETag again is stale (412,
// nothing written), the answer's ETag is the next GET's, If-Match is part
// of the idempotency fingerprint, and a malformed one is 400.
func exercisePreconditions(h *harness) {
	t := h.t
	t.Helper()
	h.seed(0, "CAS")
	h.must("POST", "/v1/locations", "cas-location", `{"location":"CAS-L","name":"cas"}`, http.StatusCreated, nil)
	for _, c := range []struct {
		name, read, path, first, second string
		name2                           func() string
	}{
		{name: "sku", read: "/v1/skus/CAS", path: "/v1/skus/CAS", first: `{"name":"first"}`, second: `{"name":"second"}`,
			name2: func() string { var s SKU; h.must("GET", "/v1/skus/CAS", "", "", http.StatusOK, &s); return s.Name }},
		{name: "location", read: "/v1/locations/CAS-L", path: "/v1/locations/CAS-L", first: `{"name":"first"}`, second: `{"name":"second"}`,
			name2: func() string {
				var l Location
				h.must("GET", "/v1/locations/CAS-L", "", "", http.StatusOK, &l)
				return l.Name
			}},
		{name: "defaults", read: "/v1/settings/replenishment", path: "/v1/settings/replenishment", first: `{"order_multiple":7}`, second: `{"order_multiple":9}`,
			name2: func() string {
				var d ReplenishmentDefaults
				h.must("GET", "/v1/settings/replenishment", "", "", http.StatusOK, &d)
				return fmt.Sprint(d.OrderMultiple)
			}},
	} {
		key := "cas-" + c.name
		tag := h.etagOf(c.read, nil)
		first := h.patchIf(c.path, key+"-1", c.first, tag, http.StatusOK)
		next := first.header.Get(headerETag)
		if next == "" || next == tag {
			t.Fatalf("%s: ETag after the change %q, want one newer than %q", c.name, next, tag)
		}
		if got := h.etagOf(c.read, nil); got != next {
			t.Fatalf("%s: GET ETag %q, want the change's %q", c.name, got, next)
		}
		applied := c.name2()
		// The ETag read before the first change is stale now.
		h.patchIf(c.path, key+"-stale", c.second, tag, http.StatusPreconditionFailed).wantCode(t, stockd.CodePreconditionFailed)
		if got := c.name2(); got != applied {
			t.Fatalf("%s: %q after a stale PATCH, want %q unchanged", c.name, got, applied)
		}
		// A replay answers the first answer, ETag included; the same key
		// under another If-Match is another request.
		replay := h.patchIf(c.path, key+"-1", c.first, tag, http.StatusOK)
		if replay.header.Get(headerReplayed) != "true" || replay.header.Get(headerETag) != next {
			t.Fatalf("%s: replay headers %v, want replayed with ETag %s", c.name, replay.header, next)
		}
		h.patchIf(c.path, key+"-1", c.first, next, http.StatusUnprocessableEntity).wantCode(t, stockd.CodeIdempotencyKeyReused)
		h.patchIf(c.path, key+"-1", c.first, "", http.StatusUnprocessableEntity).wantCode(t, stockd.CodeIdempotencyKeyReused)
		for i, bad := range []string{`W/` + next, next + `, "99"`, `7`, `"-1"`, `"01"`, `""`} {
			a := h.patchIf(c.path, fmt.Sprintf("%s-bad-%d", key, i), c.second, bad, http.StatusBadRequest)
			if p := a.problem(t); p.Code != stockd.CodeInvalidInput || p.Field != headerIfMatch {
				t.Fatalf("%s: If-Match %s answered %+v, want invalid_input naming If-Match", c.name, bad, p)
			}
		}
		// The current ETag, * and no condition all apply.
		h.patchIf(c.path, key+"-2", c.second, next, http.StatusOK)
		h.patchIf(c.path, key+"-any", c.first, "*", http.StatusOK)
		h.patchIf(c.path, key+"-none", c.second, "", http.StatusOK)
		if got := c.name2(); got == applied {
			t.Fatalf("%s: still %q after the later changes", c.name, got)
		}
	}
	h.must("GET", "/v1/locations/nowhere", "", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeUnknownLocation)
	h.must("GET", "/v1/locations/a%3Bb", "", "", http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	h.patchIf("/v1/skus/NOPE", "cas-unknown", `{"name":"x"}`, `"0"`, http.StatusNotFound).wantCode(t, stockd.CodeUnknownSKU)
}

// TestPreconditions: If-Match on the settings endpoints, and under
// concurrency: of several PATCHes naming one version, exactly one applies
// and the others are 412, since the version is checked under the lock the
// change takes.
func TestPreconditions(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		exercisePreconditions(h)

		// Through the typed client: the ETag of a read, then of a change.
		ctx := context.Background()
		c := NewClient(h.url, fastRetries)
		sku, err := c.GetSKU(ctx, "CAS")
		if err != nil || sku.ETag == "" {
			t.Fatalf("GetSKU = %+v, %v, want an ETag", sku, err)
		}
		name := "client"
		changed, err := c.UpdateSKU(ctx, UpdateSKUParams{SKU: "CAS", Name: &name, IfMatch: sku.ETag})
		if err != nil || changed.ETag == "" || changed.ETag == sku.ETag {
			t.Fatalf("UpdateSKU = %+v, %v, want a newer ETag than %s", changed, err, sku.ETag)
		}
		if _, err := c.UpdateSKU(ctx, UpdateSKUParams{SKU: "CAS", Name: &name, IfMatch: sku.ETag}); stockd.ErrorCode(err) != stockd.CodePreconditionFailed {
			t.Fatalf("UpdateSKU under a stale ETag: %v, want precondition_failed", err)
		}
		loc, err := c.GetLocation(ctx, "CAS-L")
		if err != nil || loc.ETag == "" {
			t.Fatalf("GetLocation = %+v, %v", loc, err)
		}
		if _, err := c.UpdateLocation(ctx, UpdateLocationParams{Location: "CAS-L", Name: &name, IfMatch: loc.ETag}); err != nil {
			t.Fatal(err)
		}
		defaults, err := c.GetReplenishmentDefaults(ctx)
		if err != nil || defaults.ETag == "" {
			t.Fatalf("GetReplenishmentDefaults = %+v, %v", defaults, err)
		}
		multiple := int64(12)
		if _, err := c.UpdateReplenishmentDefaultsIf(ctx, "", defaults.ETag, stockd.ReplenishmentDefaults{ReplenishmentSettings: stockd.ReplenishmentSettings{OrderMultiple: &multiple}}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.UpdateReplenishmentDefaultsIf(ctx, "", defaults.ETag, stockd.ReplenishmentDefaults{ReplenishmentSettings: stockd.ReplenishmentSettings{OrderMultiple: &multiple}}); stockd.ErrorCode(err) != stockd.CodePreconditionFailed {
			t.Fatalf("stale defaults change: %v, want precondition_failed", err)
		}

		const racers = 8
		for _, path := range []string{"/v1/skus/CAS", "/v1/locations/CAS-L", "/v1/settings/replenishment"} {
			tag := h.etagOf(path, nil)
			statuses := make([]int, racers)
			errs := make([]error, racers)
			var wg sync.WaitGroup
			for i := range racers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					body := fmt.Sprintf(`{"name":"racer %d"}`, i)
					if path == "/v1/settings/replenishment" {
						body = fmt.Sprintf(`{"order_multiple":%d}`, 100+i)
					}
					a, err := h.trySend("PATCH", path, []byte(body), map[string]string{
						headerIdempotencyKey: fmt.Sprintf("race-%s-%d", path, i), headerIfMatch: tag})
					statuses[i], errs[i] = a.status, err
				}()
			}
			wg.Wait()
			won := 0
			for i := range racers {
				if errs[i] != nil {
					t.Fatal(errs[i])
				}
				switch statuses[i] {
				case http.StatusOK:
					won++
				case http.StatusPreconditionFailed:
				default:
					t.Fatalf("%s racer %d: status %d, want 200 or 412", path, i, statuses[i])
				}
			}
			if won != 1 {
				t.Fatalf("%s: %d of %d PATCHes under one If-Match applied, want exactly 1 (statuses %v)", path, won, racers, statuses)
			}
		}
	})
}
