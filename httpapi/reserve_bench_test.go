package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// answeringSubmitter answers every reservation as won at once: what is left
// of a request's cost is the HTTP layer's own (decoding, fingerprint,
// middleware, metrics, encoding).
type answeringSubmitter struct{}

func (answeringSubmitter) Submit(_ context.Context, cmd stockd.Command) (stockd.Result, error) {
	reserve := cmd.Op.(*stockd.Reserve)
	now := time.Date(2026, 12, 5, 3, 30, 0, 123456789, time.UTC)
	res := &stockd.Reservation{
		ID: "r_01JEXAMPLE0000000000000000", Key: cmd.IdempotencyKey, Status: stockd.StatusPending,
		ExpiresAt: now.Add(15 * time.Minute), CreatedAt: now, UpdatedAt: now,
	}
	for _, l := range reserve.Lines {
		res.Lines = append(res.Lines, stockd.ReservationLine{SKU: l.SKU, Quantity: l.Quantity, Location: "main", Pool: stockd.PoolDefault})
	}
	return stockd.Result{Reservation: res, Created: true}, nil
}

// openStore is a store without keys: the server runs open, as serve on
// loopback does before the first key.
type openStore struct{ store.Store }

func (openStore) KeyCount(context.Context) (int, error) { return 0, nil }

// BenchmarkReserveHandler measures POST /v1/reservations through the whole
// handler chain, without the network and without the engine.
func BenchmarkReserveHandler(b *testing.B) {
	s := NewServer(Config{Engine: answeringSubmitter{}, Store: openStore{}, Logger: discard()})
	body := `{"lines":[{"sku":"bench-hot","quantity":1}]}`
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r := httptest.NewRequest(http.MethodPost, "/v1/reservations", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Idempotency-Key", "bench-"+strconv.Itoa(i))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, r)
		if w.Code != http.StatusCreated {
			b.Fatalf("status %d: %s", w.Code, w.Body)
		}
	}
}
