package httpapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/expiry"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// TestAnswerPruning: past the retention the expiry worker's pruner cuts
// the stored answers down to their outcome. The keys stay spent: the same
// request again is 422 answer_pruned (not replayed, not applied), another
// request under the key is still idempotency_key_reused, and GET
// /v1/requests/{key} keeps the outcome with pruned: true. Answers inside
// the retention replay whole.
func TestAnswerPruning(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		reserve := `{"lines":[{"sku":"A","quantity":2}]}`
		var first Reservation
		h.must("POST", "/v1/reservations", "late-applied", reserve, http.StatusCreated, &first)
		h.mustRefuse("/v1/reservations", "late-refused", `{"lines":[{"sku":"A","quantity":100}]}`, http.StatusConflict, stockd.CodeInsufficientStock)
		h.must("PATCH", "/v1/skus/A", "late-threshold", `{"approval_threshold":5}`, http.StatusOK, nil)
		h.must("POST", "/v1/adjustments", "late-pending", `{"sku":"A","reason":"found","delta":6}`, http.StatusAccepted, nil)
		hook := `{"url":"https://hooks.example.com/stockd","event_types":["reserve"]}`
		h.must("POST", "/v1/webhooks", "late-hook", hook, http.StatusCreated, nil)
		h.clock.Advance(20 * 24 * time.Hour)
		h.must("POST", "/v1/reservations", "recent", reserve, http.StatusCreated, nil)
		h.clock.Advance(11 * 24 * time.Hour)

		p := expiry.NewPruner(expiry.PrunerConfig{Store: h.store, Retention: stockd.IdempotencyRetentionDefault, Now: h.clock.Now})
		if n, err := p.RunOnce(t.Context()); err != nil || n < 6 {
			t.Fatalf("prune = %d, %v; want the answers of the seed and the 5 late requests", n, err)
		}

		before := h.books("A")
		for _, c := range []struct{ method, path, key, body string }{
			{"POST", "/v1/reservations", "late-applied", reserve},
			{"POST", "/v1/reservations", "late-refused", `{"lines":[{"sku":"A","quantity":100}]}`},
			{"POST", "/v1/adjustments", "late-pending", `{"sku":"A","reason":"found","delta":6}`},
			{"POST", "/v1/webhooks", "late-hook", hook},
		} {
			a := h.must(c.method, c.path, c.key, c.body, http.StatusUnprocessableEntity, nil)
			a.wantCode(t, stockd.CodeAnswerPruned)
			if a.header.Get(headerReplayed) != "" {
				t.Errorf("%s: a pruned answer says Idempotent-Replayed", c.key)
			}
		}
		h.must("POST", "/v1/reservations", "late-applied", `{"lines":[{"sku":"A","quantity":3}]}`, http.StatusUnprocessableEntity, nil).
			wantCode(t, stockd.CodeIdempotencyKeyReused)
		h.must("POST", "/v1/webhooks", "late-hook", `{"url":"https://other.example.com/","event_types":["reserve"]}`, http.StatusUnprocessableEntity, nil).
			wantCode(t, stockd.CodeIdempotencyKeyReused)
		h.requireUnchanged(before, "A")
		if a := h.must("POST", "/v1/reservations", "recent", reserve, http.StatusCreated, nil); a.header.Get(headerReplayed) != "true" {
			t.Error("an answer inside the retention was not replayed")
		}

		for _, want := range []RequestOutcome{
			{Key: "late-applied", Outcome: outcomeApplied, Status: http.StatusCreated, Pruned: true},
			{Key: "late-refused", Outcome: outcomeRefused, Status: http.StatusConflict, Code: stockd.CodeInsufficientStock, Pruned: true},
			{Key: "late-pending", Outcome: outcomePending, Status: http.StatusAccepted, Pruned: true},
			{Key: "late-threshold", Outcome: outcomeApplied, Status: http.StatusOK, Pruned: true},
			{Key: "late-hook", Outcome: outcomeApplied, Status: http.StatusCreated, Pruned: true},
			{Key: "recent", Outcome: outcomeApplied, Status: http.StatusCreated, Pruned: false},
		} {
			var got RequestOutcome
			h.must("GET", "/v1/requests/"+want.Key, "", "", http.StatusOK, &got)
			got.CreatedAt = time.Time{}
			if got != want {
				t.Errorf("outcome of %s = %+v, want %+v", want.Key, got, want)
			}
		}
		// The books still name the key.
		var byKey Reservation
		h.must("GET", "/v1/reservations?key=late-applied", "", "", http.StatusOK, &byKey)
		if byKey.ID != first.ID {
			t.Errorf("reservation by key = %+v, want %s", byKey, first.ID)
		}
	})
}

// exerciseAnswerPruning drives answer_pruned and a pruned outcome for the
// contract test. It prunes every answer stored so far, so it runs after
// the exercises that replay their keys.
func exerciseAnswerPruning(h *harness) {
	t := h.t
	t.Helper()
	body := `{"lines":[{"sku":"A","quantity":1}]}`
	h.must("POST", "/v1/reservations", "prune-me", body, http.StatusCreated, nil)
	for {
		n, err := h.store.IdempotencyPrune(t.Context(), &store.IdempotencyPruneParams{
			CreatedBefore: h.clock.Now().Add(time.Millisecond), Limit: stockd.IdempotencyPruneBatchMax, Now: h.clock.Now()})
		if err != nil {
			t.Fatal(err)
		}
		if n < stockd.IdempotencyPruneBatchMax {
			break
		}
	}
	h.must("POST", "/v1/reservations", "prune-me", body, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeAnswerPruned)
	var got RequestOutcome
	h.must("GET", "/v1/requests/prune-me", "", "", http.StatusOK, &got)
	if !got.Pruned || got.Outcome != outcomeApplied {
		t.Fatalf("outcome %+v, want applied and pruned", got)
	}
}
