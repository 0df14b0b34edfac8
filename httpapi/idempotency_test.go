package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestReplay checks that the same key and the same request answer the
// first answer again, byte for byte, whatever the body's whitespace and
// field order, without touching stock; and that the same key with another
// request is idempotency_key_reused.
func TestReplay(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		for _, c := range []struct {
			name       string
			path       string
			first      string
			again      string // the same request, spelled differently
			other      string // another request
			wantStatus int
		}{
			{
				name: "receipt", path: "/v1/receipts",
				first:      `{"sku":"A","quantity":5,"reference":"DN-7"}`,
				again:      "{ \"reference\" : \"DN-7\",\n \"quantity\": 5, \"sku\":\"A\" }",
				other:      `{"sku":"A","quantity":6,"reference":"DN-7"}`,
				wantStatus: http.StatusOK,
			},
			{
				name: "reservation", path: "/v1/reservations",
				first:      `{"lines":[{"sku":"A","quantity":2}],"ttl_seconds":60}`,
				again:      `{"ttl_seconds":60,"lines":[{"quantity":2,"sku":"A"}]}`,
				other:      `{"lines":[{"sku":"A","quantity":2}],"ttl_seconds":61}`,
				wantStatus: http.StatusCreated,
			},
			{
				name: "refused reservation", path: "/v1/reservations",
				first:      `{"lines":[{"sku":"A","quantity":1000}]}`,
				again:      `{"lines":[{"quantity":1000,"sku":"A"}]}`,
				other:      `{"lines":[{"sku":"A","quantity":1}]}`,
				wantStatus: http.StatusConflict,
			},
		} {
			t.Run(c.name, func(t *testing.T) {
				h.t = t
				key := "replay-" + c.name
				first := h.send("POST", c.path, key, []byte(c.first))
				if first.status != c.wantStatus || first.header.Get(headerReplayed) != "" {
					t.Fatalf("first: %d replayed=%q, want %d and no replay: %s", first.status, first.header.Get(headerReplayed), c.wantStatus, first.body)
				}
				before := h.books("A")
				for _, body := range []string{c.first, c.again} {
					again := h.send("POST", c.path, key, []byte(body))
					if again.status != first.status || !bytes.Equal(again.body, first.body) || again.header.Get(headerReplayed) != "true" {
						t.Fatalf("replay: %d replayed=%q %s\nwant %d replayed=true %s", again.status, again.header.Get(headerReplayed), again.body, first.status, first.body)
					}
				}
				other := h.send("POST", c.path, key, []byte(c.other))
				if p := other.problem(t); other.status != http.StatusUnprocessableEntity || p.Code != stockd.CodeIdempotencyKeyReused || other.header.Get(headerReplayed) != "" {
					t.Fatalf("other request under the key: %d %s replayed=%q, want 422 idempotency_key_reused, not replayed", other.status, p.Code, other.header.Get(headerReplayed))
				}
				// The key also binds the path: the same body elsewhere is
				// another request.
				elsewhere := h.send("POST", "/v1/adjustments", key, []byte(`{"sku":"A","reason":"found","delta":1}`))
				if p := elsewhere.problem(t); p.Code != stockd.CodeIdempotencyKeyReused {
					t.Fatalf("key reused on another path: %d %s, want idempotency_key_reused", elsewhere.status, p.Code)
				}
				h.requireUnchanged(before, "A")
			})
		}
	})
}

// TestOneKeyManyRequests sends 200 concurrent reservations under one key,
// a few of them with another body: exactly one applies, every other
// request with its body gets the identical answer marked replayed, and
// every request with the other body gets idempotency_key_reused.
func TestOneKeyManyRequests(t *testing.T) {
	const (
		requests  = 200
		different = 5
	)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(100, "A")
		bodies := [2]string{`{"lines":[{"sku":"A","quantity":1}]}`, `{"lines":[{"sku":"A","quantity":2}]}`}
		answers := make([]answer, requests)
		errs := make([]error, requests)
		which := make([]int, requests)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range requests {
			if i%(requests/different) == requests/different-1 {
				which[i] = 1
			}
			wg.Go(func() {
				<-start
				answers[i], errs[i] = h.trySend("POST", "/v1/reservations", []byte(bodies[which[i]]), map[string]string{headerIdempotencyKey: "one-key"})
			})
		}
		close(start)
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}

		winner := -1
		for i, a := range answers {
			if a.status == http.StatusCreated && a.header.Get(headerReplayed) == "" {
				if winner >= 0 {
					t.Fatalf("two requests applied: %d and %d", winner, i)
				}
				winner = i
			}
		}
		if winner < 0 {
			t.Fatal("no request applied")
		}
		t.Logf("request %d applied, with body %d", winner, which[winner])
		for i, a := range answers {
			switch {
			case i == winner:
			case which[i] == which[winner]:
				if a.status != http.StatusCreated || a.header.Get(headerReplayed) != "true" || !bytes.Equal(a.body, answers[winner].body) {
					t.Errorf("request %d: %d replayed=%q %s, want the winner's answer replayed", i, a.status, a.header.Get(headerReplayed), a.body)
				}
			default:
				if p := a.problem(t); a.status != http.StatusUnprocessableEntity || p.Code != stockd.CodeIdempotencyKeyReused {
					t.Errorf("request %d with the other body: %d %s, want 422 idempotency_key_reused", i, a.status, p.Code)
				}
			}
		}

		wantReserved := int64(which[winner] + 1)
		var stock Stock
		h.must("GET", "/v1/stock/A", "", "", http.StatusOK, &stock)
		if stock.Totals.Reserved != wantReserved || stock.Totals.OnHand != 100 {
			t.Errorf("totals %+v, want reserved %d of on_hand 100", stock.Totals, wantReserved)
		}
		var events EventPage
		h.must("GET", "/v1/events", "", "", http.StatusOK, &events)
		reserves := 0
		for _, e := range events.Events {
			if e.Type == stockd.BusinessReserve {
				reserves++
			}
		}
		if reserves != 1 {
			t.Errorf("%d reserve entries in the ledger, want 1", reserves)
		}
		var byKey Reservation
		h.must("GET", "/v1/reservations?key=one-key", "", "", http.StatusOK, &byKey)
		if want := fmt.Sprintf(`"id":%q`, byKey.ID); !bytes.Contains(answers[winner].body, []byte(want)) {
			t.Errorf("reservation by key %s is not the one answered: %s", byKey.ID, answers[winner].body)
		}
	})
}
