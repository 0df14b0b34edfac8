package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// fastRetries keeps retrying tests quick.
var fastRetries = WithBackoff(time.Millisecond, 5*time.Millisecond)

// requireCode fails unless err is a *stockd.Error with code.
func requireCode(t *testing.T, err error, code string) *stockd.Error {
	t.Helper()
	var e *stockd.Error
	if !errors.As(err, &e) || e.Code != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
	return e
}

// TestClientFlow walks a SKU through receipt, placement by priority,
// reservation, confirm, fulfil and release with the client, including the
// errors it must surface as codes.
func TestClientFlow(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		ctx := t.Context()
		c := NewClient(h.url, fastRetries, WithActor("alice"))

		sku, err := c.CreateSKU(ctx, CreateSKUParams{IdempotencyKey: "sku-A", SKU: "A", Name: "Apple"})
		if err != nil || sku.SKU != "A" || sku.Unit != "piece" || sku.Replayed {
			t.Fatalf("CreateSKU: %+v, %v", sku, err)
		}
		if again, err := c.CreateSKU(ctx, CreateSKUParams{IdempotencyKey: "sku-A", SKU: "A", Name: "Apple"}); err != nil || !again.Replayed || again.CreatedAt != sku.CreatedAt {
			t.Fatalf("CreateSKU again: %+v, %v; want a replay of %+v", again, err, sku)
		}
		_, err = c.CreateSKU(ctx, CreateSKUParams{SKU: "A"})
		requireCode(t, err, stockd.CodeAlreadyExists)
		if got, err := c.GetSKU(ctx, "A"); err != nil || got.Name != "Apple" {
			t.Fatalf("GetSKU: %+v, %v", got, err)
		}
		_, err = c.GetSKU(ctx, "B")
		requireCode(t, err, stockd.CodeUnknownSKU)

		for _, l := range []CreateLocationParams{{Location: "L1", Priority: 1}, {Location: "L2", Priority: 2}} {
			if _, err := c.CreateLocation(ctx, l); err != nil {
				t.Fatalf("CreateLocation %s: %v", l.Location, err)
			}
		}
		if locations, err := c.Locations(ctx); err != nil || len(locations) != 3 {
			t.Fatalf("Locations: %+v, %v; want default, L1, L2", locations, err)
		}
		if _, err := c.Receive(ctx, ReceiveParams{SKU: "A", Location: "L2", Quantity: 3}); err != nil {
			t.Fatal(err)
		}
		pos, err := c.Receive(ctx, ReceiveParams{SKU: "A", Location: "L1", Quantity: 5, Reference: "DN-1"})
		if err != nil || pos.OnHand != 5 || pos.Available != 5 || pos.Pool != stockd.PoolDefault {
			t.Fatalf("Receive: %+v, %v", pos, err)
		}

		// A line without a location goes to the first location by priority
		// that holds all of it.
		first, err := c.Reserve(ctx, ReserveParams{Lines: []ReserveLine{{SKU: "A", Quantity: 4}}, TTL: 90 * time.Second})
		if err != nil || first.Status != "pending" || len(first.Lines) != 1 || first.Lines[0].Location != "L1" {
			t.Fatalf("Reserve: %+v, %v; want 4 pending at L1", first, err)
		}
		if ttl := first.ExpiresAt.Sub(first.CreatedAt); ttl != 90*time.Second {
			t.Errorf("expires %s after creation, want 90s", ttl)
		}
		_, err = c.Reserve(ctx, ReserveParams{Lines: []ReserveLine{{SKU: "A", Quantity: 4}}})
		short := requireCode(t, err, stockd.CodeInsufficientStock)
		if len(short.Lines) != 1 || short.Lines[0].Requested != 4 || short.Lines[0].Available != 3 {
			t.Fatalf("shortfall %+v, want requested 4, available 3", short.Lines)
		}

		confirmed, err := c.Confirm(ctx, ConfirmParams{ID: first.ID})
		if err != nil || confirmed.Status != "confirmed" {
			t.Fatalf("Confirm: %+v, %v", confirmed, err)
		}
		if again, err := c.Confirm(ctx, ConfirmParams{ID: first.ID}); err != nil || again.Status != "confirmed" || again.Replayed {
			t.Fatalf("Confirm again under a new key: %+v, %v; want confirmed, unchanged", again, err)
		}
		_, err = c.Release(ctx, ReleaseParams{ID: first.ID})
		if e := requireCode(t, err, stockd.CodeInvalidTransition); e.Status != stockd.StatusConfirmed {
			t.Fatalf("release after confirm: status %q, want confirmed", e.Status)
		}
		if fulfilled, err := c.Fulfil(ctx, FulfilParams{ID: first.ID}); err != nil || fulfilled.Status != "fulfilled" {
			t.Fatalf("Fulfil: %+v, %v", fulfilled, err)
		}

		second, err := c.Reserve(ctx, ReserveParams{IdempotencyKey: "order-2", Lines: []ReserveLine{{SKU: "A", Quantity: 1, Location: "L2"}}})
		if err != nil {
			t.Fatal(err)
		}
		released, err := c.Release(ctx, ReleaseParams{ID: second.ID, Reason: stockd.ReleasePaymentFailed})
		if err != nil || released.Status != "released" || released.ReleaseReason != stockd.ReleasePaymentFailed {
			t.Fatalf("Release: %+v, %v", released, err)
		}
		if again, err := c.Release(ctx, ReleaseParams{ID: second.ID}); err != nil || again.Status != "released" {
			t.Fatalf("Release again: %+v, %v", again, err)
		}
		_, err = c.Confirm(ctx, ConfirmParams{ID: second.ID})
		if e := requireCode(t, err, stockd.CodeInvalidTransition); e.Status != stockd.StatusReleased {
			t.Fatalf("confirm after release: status %q, want released", e.Status)
		}
		if byKey, err := c.GetReservationByKey(ctx, "order-2"); err != nil || byKey.ID != second.ID || byKey.Status != "released" {
			t.Fatalf("GetReservationByKey: %+v, %v", byKey, err)
		}
		if got, err := c.GetReservation(ctx, second.ID); err != nil || got.Key != "order-2" {
			t.Fatalf("GetReservation: %+v, %v", got, err)
		}
		_, err = c.GetReservation(ctx, "nope")
		requireCode(t, err, stockd.CodeNotFound)

		paid, err := c.Reserve(ctx, ReserveParams{Lines: []ReserveLine{{SKU: "A", Quantity: 2}}, Commit: true})
		if err != nil || paid.Status != "confirmed" {
			t.Fatalf("Reserve with commit: %+v, %v", paid, err)
		}

		if _, err := c.Adjust(ctx, AdjustParams{SKU: "A", Location: "L2", Reason: stockd.ReasonDamage, Delta: -1}); err != nil {
			t.Fatal(err)
		}
		_, err = c.Adjust(ctx, AdjustParams{SKU: "A", Location: "L2", Reason: stockd.ReasonCycleCount, Set: true, SetOnHand: 7, ExpectedOnHand: 3})
		requireCode(t, err, stockd.CodeStaleQuantity)
		counted, err := c.Adjust(ctx, AdjustParams{SKU: "A", Location: "L2", Reason: stockd.ReasonCycleCount, Set: true, SetOnHand: 7, ExpectedOnHand: 2})
		if err != nil || counted.OnHand != 7 {
			t.Fatalf("cycle count: %+v, %v", counted, err)
		}

		stock, err := c.Stock(ctx, "A")
		// L1: 5 received, 4 fulfilled; L2: 3 received, 2 committed, 1
		// damaged, counted 7.
		want := Balance{OnHand: 8, Committed: 2, Available: 6}
		if err != nil || stock.Totals != want || len(stock.Positions) != 2 {
			t.Fatalf("Stock: %+v, %v; want totals %+v over 2 positions", stock, err, want)
		}

		requireLedgerPages(t, c)
	})
}

// requireLedgerPages reads the ledger in pages of 2 and checks the cursor
// against one read of the events.
func requireLedgerPages(t *testing.T, c *Client) {
	t.Helper()
	ctx := t.Context()
	var paged []LedgerEntry
	var after int64
	for range 100 {
		page, err := c.Ledger(ctx, LedgerParams{SKU: "A", After: after, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Entries) == 0 {
			if page.NextAfter != after {
				t.Fatalf("empty page moved the cursor from %d to %d", after, page.NextAfter)
			}
			break
		}
		paged = append(paged, page.Entries...)
		after = page.NextAfter
	}
	events, err := c.Events(ctx, EventsParams{Limit: stockd.PageSizeMax})
	if err != nil {
		t.Fatal(err)
	}
	if len(paged) != len(events.Events) || len(paged) == 0 {
		t.Fatalf("%d entries by pages, %d events", len(paged), len(events.Events))
	}
	for i, e := range paged {
		if e != events.Events[i] {
			t.Fatalf("entry %d: %+v by pages, %+v as event", i, e, events.Events[i])
		}
		if e.Actor != "alice" && e.Type != stockd.BusinessReceipt {
			t.Errorf("entry %d: actor %q, want alice", i, e.Actor)
		}
	}
}

// dropFirstReply lets the first request of a method reach the server and
// then loses the answer, as a dropped connection after the commit would.
type dropFirstReply struct {
	next   http.RoundTripper
	method string

	mu      sync.Mutex
	dropped bool
	keys    []string
}

func (d *dropFirstReply) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := d.next.RoundTrip(req)
	if err != nil || req.Method != d.method {
		return resp, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.keys = append(d.keys, req.Header.Get(headerIdempotencyKey))
	if d.dropped {
		return resp, nil
	}
	d.dropped = true
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return nil, errors.New("injected: connection reset after the server answered")
}

// TestClientRetryAfterLostReply checks that the client's retry after a lost
// answer is a replay: one reservation, one ledger effect.
func TestClientRetryAfterLostReply(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		ctx := t.Context()
		lossy := &dropFirstReply{next: http.DefaultTransport, method: http.MethodPost}
		c := NewClient(h.url, WithHTTPClient(&http.Client{Transport: lossy}), fastRetries)

		res, err := c.Reserve(ctx, ReserveParams{Lines: []ReserveLine{{SKU: "A", Quantity: 3}}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Replayed {
			t.Error("the answer after a lost reply is not marked replayed")
		}
		if len(lossy.keys) != 2 || lossy.keys[0] != lossy.keys[1] || lossy.keys[0] == "" || res.Key != lossy.keys[0] {
			t.Fatalf("keys sent %q, reservation key %q; want the same generated key twice", lossy.keys, res.Key)
		}
		requireOneReservation(t, h, 3)

		// Without retries the caller gets the transport error, and learns
		// the outcome by reading the reservation by its key.
		lossy = &dropFirstReply{next: http.DefaultTransport, method: http.MethodPost}
		once := NewClient(h.url, WithHTTPClient(&http.Client{Transport: lossy}), WithAttemptsMax(1))
		_, err = once.Reserve(ctx, ReserveParams{IdempotencyKey: "order-lost", Lines: []ReserveLine{{SKU: "A", Quantity: 1}}})
		var e *stockd.Error
		if err == nil || errors.As(err, &e) {
			t.Fatalf("error %v, want the transport error", err)
		}
		got, err := once.GetReservationByKey(ctx, "order-lost")
		if err != nil || got.Status != "pending" {
			t.Fatalf("GetReservationByKey after a lost reply: %+v, %v", got, err)
		}
	})
}

func requireOneReservation(t *testing.T, h *harness, quantity int64) {
	t.Helper()
	var stock Stock
	h.must("GET", "/v1/stock/A", "", "", http.StatusOK, &stock)
	if stock.Totals.Reserved != quantity {
		t.Errorf("reserved %d, want %d", stock.Totals.Reserved, quantity)
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
		t.Errorf("%d reserve entries, want 1", reserves)
	}
}

// scripted is a server that answers from a script, one answer per attempt,
// and remembers the idempotency key of each.
type scripted struct {
	mu      sync.Mutex
	answers []func(w http.ResponseWriter)
	keys    []string
}

func (s *scripted) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.keys)
	s.keys = append(s.keys, r.Header.Get(headerIdempotencyKey))
	answer := s.answers[min(n, len(s.answers)-1)]
	s.mu.Unlock()
	answer(w)
}

func problemAnswer(code string) func(w http.ResponseWriter) {
	return func(w http.ResponseWriter) { writeProblem(w, stockd.Errorf(code, "scripted %s", code)) }
}

func reservationAnswer(w http.ResponseWriter) {
	writeJSON(w, http.StatusCreated, Reservation{ID: "r1", Key: "k", Status: "pending", Lines: []ReservationLine{}})
}

// TestClientRetries checks what the client retries (no answer, 5xx, 429),
// what it does not (every other answer), that every attempt carries the
// same key, and that attempts are bounded.
func TestClientRetries(t *testing.T) {
	reserve := ReserveParams{IdempotencyKey: "k", Lines: []ReserveLine{{SKU: "A", Quantity: 1}}}
	for _, c := range []struct {
		name         string
		answers      []func(w http.ResponseWriter)
		wantAttempts int
		wantCode     string // "" for success
	}{
		{"success", []func(http.ResponseWriter){reservationAnswer}, 1, ""},
		{"503 then success", []func(http.ResponseWriter){problemAnswer(stockd.CodeCancelled), problemAnswer(stockd.CodeCancelled), reservationAnswer}, 3, ""},
		{"500 then success", []func(http.ResponseWriter){problemAnswer(stockd.CodeInternal), reservationAnswer}, 2, ""},
		{"429 then success", []func(http.ResponseWriter){
			func(w http.ResponseWriter) {
				writeBody(w, "application/problem+json", 429, problemOf(stockd.Errorf(stockd.CodeOverloaded, "busy")))
			},
			reservationAnswer,
		}, 2, ""},
		{"a proxy's 502", []func(http.ResponseWriter){func(w http.ResponseWriter) { http.Error(w, "<html>bad gateway</html>", http.StatusBadGateway) }}, 4, stockd.CodeInternal},
		{"always 500", []func(http.ResponseWriter){problemAnswer(stockd.CodeInternal)}, 4, stockd.CodeInternal},
		{"409 is an answer", []func(http.ResponseWriter){problemAnswer(stockd.CodeInsufficientStock)}, 1, stockd.CodeInsufficientStock},
		{"422 is an answer", []func(http.ResponseWriter){problemAnswer(stockd.CodeIdempotencyKeyReused)}, 1, stockd.CodeIdempotencyKeyReused},
		{"400 is an answer", []func(http.ResponseWriter){problemAnswer(stockd.CodeInvalidInput)}, 1, stockd.CodeInvalidInput},
	} {
		t.Run(c.name, func(t *testing.T) {
			script := &scripted{answers: c.answers}
			srv := httptest.NewServer(script)
			defer srv.Close()
			res, err := NewClient(srv.URL, fastRetries).Reserve(t.Context(), reserve)
			if c.wantCode == "" {
				if err != nil || res.ID != "r1" {
					t.Fatalf("Reserve: %+v, %v", res, err)
				}
			} else {
				requireCode(t, err, c.wantCode)
			}
			if len(script.keys) != c.wantAttempts {
				t.Fatalf("%d attempts, want %d", len(script.keys), c.wantAttempts)
			}
			for i, k := range script.keys {
				if k != "k" {
					t.Errorf("attempt %d sent key %q, want k", i, k)
				}
			}
		})
	}
}

// TestClientRetriesNetworkErrors checks that a refused connection is
// retried, bounded, and reported as the transport error.
func TestClientRetriesNetworkErrors(t *testing.T) {
	var attempts atomic.Int32
	failing := roundTripFunc(func(*http.Request) (*http.Response, error) {
		attempts.Add(1)
		return nil, errors.New("injected: connection refused")
	})
	_, err := NewClient("http://127.0.0.1:1", WithHTTPClient(&http.Client{Transport: failing}), fastRetries).Stock(t.Context(), "A")
	var e *stockd.Error
	if err == nil || errors.As(err, &e) || attempts.Load() != attemptsDefault {
		t.Fatalf("error %v after %d attempts, want the transport error after %d", err, attempts.Load(), attemptsDefault)
	}
}

// TestClientStopsWithContext checks that a cancelled context ends the
// retries at once.
func TestClientStopsWithContext(t *testing.T) {
	script := &scripted{answers: []func(http.ResponseWriter){problemAnswer(stockd.CodeInternal)}}
	srv := httptest.NewServer(script)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := NewClient(srv.URL, WithBackoff(time.Hour, time.Hour)).GetReservation(ctx, "r1")
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Fatalf("error %v after %s, want the context's deadline at once", err, time.Since(start))
	}
	if len(script.keys) != 1 {
		t.Fatalf("%d attempts, want 1", len(script.keys))
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestClientGeneratesDistinctKeys checks that calls without a key do not
// share one: two receipts are two effects.
func TestClientGeneratesDistinctKeys(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		k := keyOrRandom("")
		if seen[k] || !stockd.ValidIdempotencyKey(k) {
			t.Fatalf("generated key %q repeated or invalid", k)
		}
		seen[k] = true
	}
	if got := keyOrRandom("mine"); got != "mine" {
		t.Fatalf("keyOrRandom(mine) = %q", got)
	}
}
