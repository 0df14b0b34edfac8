package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestIdempotencyKeyScopedToAPIKey: an Idempotency-Key is the API key's
// own. Another API key's identical request under it is applied, not
// replayed; each key reads its own answer back; an answer stored while the
// server ran open (as every answer before scoping was stored) still
// replays to whoever retries it.
func TestIdempotencyKeyScopedToAPIKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(0, "A")
		receipt := `{"sku":"A","quantity":5}`
		h.must("POST", "/v1/receipts", "legacy-1", receipt, http.StatusOK, nil)
		_, alice := h.storeKey("alice", stockd.ScopeStock, stockd.ScopeReserve, stockd.ScopeRead)
		_, bob := h.storeKey("bob", stockd.ScopeStock, stockd.ScopeReserve, stockd.ScopeRead)
		as := func(secret, key string) map[string]string { return bearer(secret, headerIdempotencyKey, key) }

		if a := h.expect("POST", "/v1/receipts", receipt, http.StatusOK, as(alice, "legacy-1")); a.header.Get(headerReplayed) != "true" {
			t.Fatal("a retry of an answer stored while open was not replayed")
		}
		if a := h.expect("POST", "/v1/receipts", receipt, http.StatusOK, as(alice, "shared-1")); a.header.Get(headerReplayed) == "true" {
			t.Fatal("alice's first receipt under shared-1 was a replay")
		}
		if a := h.expect("POST", "/v1/receipts", receipt, http.StatusOK, as(bob, "shared-1")); a.header.Get(headerReplayed) == "true" {
			t.Fatal("bob's receipt under alice's key shared-1 replayed alice's answer")
		}
		if a := h.expect("POST", "/v1/receipts", receipt, http.StatusOK, as(alice, "shared-1")); a.header.Get(headerReplayed) != "true" {
			t.Fatal("alice's retry under shared-1 was not a replay")
		}
		// A different body under bob's own key is still reused.
		h.expect("POST", "/v1/receipts", `{"sku":"A","quantity":6}`, http.StatusUnprocessableEntity, as(bob, "shared-1"))
		var stock Stock
		if err := json.Unmarshal(h.expect("GET", "/v1/stock/A", "", http.StatusOK, bearer(alice)).body, &stock); err != nil {
			t.Fatal(err)
		}
		if stock.Totals.OnHand != 15 {
			t.Fatalf("on_hand = %d, want 15: the open receipt, alice's and bob's", stock.Totals.OnHand)
		}

		// Reservations under one key, one per API key, each read back by
		// its own.
		order := `{"lines":[{"sku":"A","quantity":1}]}`
		var mine, theirs Reservation
		if err := json.Unmarshal(h.expect("POST", "/v1/reservations", order, http.StatusCreated, as(alice, "order-1")).body, &mine); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(h.expect("POST", "/v1/reservations", order, http.StatusCreated, as(bob, "order-1")).body, &theirs); err != nil {
			t.Fatal(err)
		}
		if mine.ID == theirs.ID || mine.Key != "order-1" || theirs.Key != "order-1" {
			t.Fatalf("alice's %s (key %q) and bob's %s (key %q): want two reservations, each showing the key as sent", mine.ID, mine.Key, theirs.ID, theirs.Key)
		}
		for secret, want := range map[string]string{alice: mine.ID, bob: theirs.ID} {
			var got Reservation
			if err := json.Unmarshal(h.expect("GET", "/v1/reservations?key=order-1", "", http.StatusOK, bearer(secret)).body, &got); err != nil {
				t.Fatal(err)
			}
			if got.ID != want {
				t.Fatalf("reservation by key order-1 = %s, want the caller's own %s", got.ID, want)
			}
			var outcome RequestOutcome
			if err := json.Unmarshal(h.expect("GET", "/v1/requests/order-1", "", http.StatusOK, bearer(secret)).body, &outcome); err != nil {
				t.Fatal(err)
			}
			if outcome.Key != "order-1" || outcome.Status != http.StatusCreated {
				t.Fatalf("request order-1 = %+v", outcome)
			}
		}
		h.expect("GET", "/v1/requests/never", "", http.StatusNotFound, bearer(bob))
	})
}
