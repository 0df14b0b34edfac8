package httpapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/stockd/stockd"
)

func TestClassOf(t *testing.T) {
	for _, c := range []struct {
		status   int
		code     string
		replayed bool
		want     string
	}{
		{http.StatusCreated, "", false, classWon},
		{http.StatusOK, "", true, classReplayed},
		{http.StatusConflict, stockd.CodeInsufficientStock, true, classReplayed},
		{http.StatusConflict, stockd.CodeInsufficientStock, false, classInsufficient},
		{http.StatusUnprocessableEntity, stockd.CodeIdempotencyKeyReused, false, classKeyReused},
		{http.StatusBadRequest, stockd.CodeInvalidInput, false, classInvalid},
		{http.StatusNotFound, stockd.CodeUnknownSKU, false, classInvalid},
		{http.StatusRequestEntityTooLarge, stockd.CodeBodyTooLarge, false, classInvalid},
		{http.StatusUnauthorized, stockd.CodeUnauthorized, false, classDenied},
		{http.StatusForbidden, stockd.CodeSelfApproval, false, classDenied},
		{http.StatusConflict, stockd.CodeInvalidTransition, false, classRefused},
		{http.StatusConflict, stockd.CodePurchaseLimitExceeded, false, classRefused},
		{http.StatusTooManyRequests, stockd.CodeRateLimited, false, classOverloaded},
		{http.StatusServiceUnavailable, stockd.CodeOverloaded, false, classOverloaded},
		{http.StatusServiceUnavailable, stockd.CodeTimeout, false, classUnavailable},
		{http.StatusServiceUnavailable, stockd.CodeHalted, false, classUnavailable},
		{http.StatusServiceUnavailable, stockd.CodeCancelled, false, classCancelled},
		{http.StatusInternalServerError, stockd.CodeInternal, false, classInternal},
		{http.StatusInternalServerError, "", false, classInternal},
	} {
		if got := classOf(c.status, c.code, c.replayed); got != c.want {
			t.Errorf("classOf(%d, %q, %v) = %s, want %s", c.status, c.code, c.replayed, got, c.want)
		}
	}
}

// TestMetricsSeparateReplaysConflictsAndReservations checks the series the
// seeds watch: duplicate requests (replays, key conflicts) apart from
// first answers, and reservations with their units by outcome and pool.
func TestMetricsSeparateReplaysConflictsAndReservations(t *testing.T) {
	registry := prometheus.NewRegistry()
	engine := &capture{}
	s := NewServer(Config{Engine: engine, Store: faultyStore{}, Registerer: registry})
	reservation := &stockd.Reservation{ID: "r1", Key: "k", Status: stockd.StatusPending, ExpiresAt: time.Now(), CreatedAt: time.Now(), UpdatedAt: time.Now()}
	for _, c := range []struct {
		result stockd.Result
		body   string
		status int
	}{
		{stockd.Result{Reservation: reservation, Created: true}, `{"lines":[{"sku":"A","quantity":3}]}`, http.StatusCreated},
		{stockd.Result{Reservation: reservation, Created: true, Replayed: true}, `{"lines":[{"sku":"A","quantity":3}]}`, http.StatusCreated},
		{stockd.Result{Err: stockd.Errorf(stockd.CodeInsufficientStock, "no")}, `{"lines":[{"sku":"A","quantity":2,"pool":"sale"}]}`, http.StatusConflict},
		{stockd.Result{Err: stockd.Errorf(stockd.CodeIdempotencyKeyReused, "other request")}, `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusUnprocessableEntity},
	} {
		engine.result = c.result
		if rec := serve(s, "POST", "/v1/reservations", "k", c.body); rec.Code != c.status {
			t.Fatalf("%s: %d, want %d", c.body, rec.Code, c.status)
		}
	}
	m := s.metrics
	for _, c := range []struct {
		name string
		c    prometheus.Collector
		want float64
	}{
		{"replays", m.replays.WithLabelValues("reservation_create"), 1},
		{"key conflicts", m.keyConflicts.WithLabelValues("reservation_create"), 1},
		{"won", m.reservations.WithLabelValues(classWon, "normal"), 1},
		{"won units", m.units.WithLabelValues(classWon, "normal"), 3},
		{"replayed", m.reservations.WithLabelValues(classReplayed, "normal"), 1},
		{"insufficient from a pool", m.reservations.WithLabelValues(classInsufficient, "pool"), 1},
		{"insufficient units", m.units.WithLabelValues(classInsufficient, "pool"), 2},
		{"refused", m.reservations.WithLabelValues(classRefused, "normal"), 1},
	} {
		if got := testutil.ToFloat64(c.c); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
	// Four answers in four classes: the latency of a replay is not mixed
	// with the latency of a first answer.
	if n := testutil.CollectAndCount(m.duration); n != 4 {
		t.Errorf("%d duration series, want 4 (won, replayed, insufficient, key_reused)", n)
	}
}
