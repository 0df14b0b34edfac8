// Package storetest is the conformance suite every storage backend runs:
// the same tests, unchanged, against SQLite and PostgreSQL. A change to the
// seam extends it.
package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store"
)

// Exercise runs the suite; newStore returns an empty migrated store.
func Exercise(t *testing.T, newStore func(t testing.TB) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		{"Catalogue", testCatalogue},
		{"ReceivePositions", testReceivePositions},
		{"ReservationLifecycle", testReservationLifecycle},
		{"ReservationListDue", testReservationListDue},
		{"LedgerList", testLedgerList},
		{"IdempotencySurvivesRestart", testIdempotencySurvivesRestart},
		{"ConstraintsAreLastLine", testConstraintsAreLastLine},
		{"LedgerUnique", testLedgerUnique},
		{"EnsureSkipsUnknown", testEnsureSkipsUnknown},
		{"LedgerSales", testLedgerSales},
		{"TimesRoundTrip", testTimesRoundTrip},
		{"MigrateIdempotent", testMigrateIdempotent},
		{"VerifyReports", testVerifyReports},
		{"KeyLifecycle", testKeyLifecycle},
		{"KeyHashUnique", testKeyHashUnique},
		{"KeyCreateBounded", testKeyCreateBounded},
		{"AuditTrail", testAuditTrail},
		{"Documents", testDocuments},
		{"HealthWrite", testHealthWrite},
	}
	// Each feature lists its own cases beside them.
	tests = append(tests, orderCases()...)
	tests = append(tests, poolCases()...)
	tests = append(tests, flowCases()...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, NewHarness(t, newStore(t)))
		})
	}
}

// Harness drives a store through a real engine, as the service does.
type Harness struct {
	T      testing.TB
	Store  store.Store
	Engine *engine.Engine
	Clock  *Clock
	keys   int
}

// Clock is a settable test clock.
type Clock struct{ now time.Time }

func (c *Clock) Now() time.Time          { return c.now }
func (c *Clock) Advance(d time.Duration) { c.now = c.now.Add(d) }

// NewHarness starts an engine on s, closed when t ends.
func NewHarness(t testing.TB, s store.Store) *Harness {
	clock := &Clock{now: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
	e := engine.New(engine.Config{Store: s, Now: clock.Now})
	t.Cleanup(e.Close)
	return &Harness{T: t, Store: s, Engine: e, Clock: clock}
}

// Do submits cmd with a fresh idempotency key and fails t on an engine error.
func (h *Harness) Do(cmd stockd.Command) stockd.Result {
	h.T.Helper()
	if cmd.IdempotencyKey == "" {
		h.keys++
		cmd.IdempotencyKey = fmt.Sprintf("key-%d", h.keys)
		cmd.RequestHash = cmd.IdempotencyKey
	}
	res, err := h.Engine.Submit(context.Background(), cmd)
	if err != nil {
		h.T.Fatalf("submit %s: %v", cmd.Kind(), err)
	}
	return res
}

// MustDo is Do that also fails t on a business error.
func (h *Harness) MustDo(cmd stockd.Command) stockd.Result {
	h.T.Helper()
	res := h.Do(cmd)
	if res.Err != nil {
		h.T.Fatalf("%s: %v", cmd.Kind(), res.Err)
	}
	return res
}

// SKU creates a SKU.
func (h *Harness) SKU(id string) {
	h.T.Helper()
	h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: id, Name: id}}})
}

// Location creates a location.
func (h *Harness) Location(id string, priority int) {
	h.T.Helper()
	h.MustDo(stockd.Command{Op: &stockd.LocationCreate{Location: stockd.Location{ID: id, Priority: priority}}})
}

// Receive adds stock at a location of the normal pool.
func (h *Harness) Receive(sku, location string, q int64) {
	h.T.Helper()
	h.MustDo(stockd.Command{Op: &stockd.Receive{
		Position: stockd.PositionKey{SKU: sku, Location: location}, Quantity: q,
	}})
}

// Reserve reserves lines of "sku:quantity" anywhere in the normal pool.
func (h *Harness) Reserve(lines ...stockd.LineRequest) stockd.Result {
	h.T.Helper()
	return h.Do(stockd.Command{Op: &stockd.Reserve{Lines: lines}})
}

// Transition applies confirm, release, expire or fulfil.
func (h *Harness) Transition(kind stockd.CommandKind, id string) stockd.Result {
	h.T.Helper()
	return h.Do(stockd.Command{Op: &stockd.Transition{Action: kind, ReservationID: id}})
}

// Counters returns a position's counters (zero if absent).
func (h *Harness) Counters(sku, location string) stockd.Counters {
	h.T.Helper()
	ps, err := h.Store.PositionListBySKU(context.Background(), sku)
	if err != nil {
		h.T.Fatalf("positions of %s: %v", sku, err)
	}
	for _, p := range ps {
		if p.Location == location && p.Pool == stockd.PoolDefault {
			return p.Counters
		}
	}
	return stockd.Counters{}
}

// Verify fails t unless the books agree.
func (h *Harness) Verify() audit.Report {
	h.T.Helper()
	rep, err := audit.Verify(context.Background(), h.Store)
	if err != nil {
		h.T.Fatalf("verify: %v", err)
	}
	if !rep.Clean() {
		h.T.Fatalf("verify found %d differences: %+v", rep.Count, rep.Differences)
	}
	return rep
}

// WantCode fails t unless res failed with code.
func WantCode(t testing.TB, res stockd.Result, code string) {
	t.Helper()
	if res.Err == nil || res.Err.Code != code {
		t.Fatalf("result error = %v, want %s", res.Err, code)
	}
}

func isNotFound(err error) bool { return errors.Is(err, stockd.ErrNotFound) }

func storeLedger(sku string, after int64, limit int) store.LedgerListParams {
	return store.LedgerListParams{SKU: sku, After: after, Limit: limit}
}
