package flowtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store"
)

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

// Set puts the clock at t, for a test that needs a time of its own (the
// seam's time round trip wants nanoseconds).
func (c *Clock) Set(t time.Time) { c.now = t }

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

// doKey submits cmd under key, so that a test can retry it.
func (h *Harness) doKey(key string, cmd stockd.Command) stockd.Result {
	h.T.Helper()
	cmd.IdempotencyKey, cmd.RequestHash = key, key
	return h.Do(cmd)
}

// submit is Do for goroutines: an explicit key, and errors returned, not
// fatal.
func (h *Harness) submit(key, actor string, cmd stockd.Command) (stockd.Result, error) {
	cmd.IdempotencyKey, cmd.RequestHash, cmd.Actor = key, key, actor
	return h.Engine.Submit(context.Background(), cmd)
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

// wantCounters fails t unless the normal-pool position holds want.
func (h *Harness) wantCounters(sku, location string, want stockd.Counters) {
	h.T.Helper()
	if got := h.Counters(sku, location); got != want {
		h.T.Fatalf("%s at %s = %+v, want %+v", sku, location, got, want)
	}
}

// ledgerOf returns the SKU's ledger entries of one business type.
func (h *Harness) ledgerOf(sku, business string) []stockd.LedgerEntry {
	h.T.Helper()
	all, err := h.Store.LedgerList(ctx, storeLedger(sku, 0, stockd.PageSizeMax))
	if err != nil {
		h.T.Fatalf("ledger of %s: %v", sku, err)
	}
	var out []stockd.LedgerEntry
	for _, e := range all {
		if e.BusinessType == business {
			out = append(out, e)
		}
	}
	return out
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

// WriteDocs writes docs in one committed transaction, straight through the
// seam and past the engine, and returns its error.
func (h *Harness) WriteDocs(docs ...stockd.Document) error {
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if err := tx.Write(ctx, &stockd.BatchWrites{Documents: docs}); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// WantCode fails t unless res failed with code.
func WantCode(t testing.TB, res stockd.Result, code string) {
	t.Helper()
	if res.Err == nil || res.Err.Code != code {
		t.Fatalf("result error = %v, want %s", res.Err, code)
	}
}

// object decodes an operation's answer.
func object[T any](t testing.TB, res stockd.Result) T {
	t.Helper()
	var v T
	if res.Err != nil {
		t.Fatalf("result error %v, want an answer", res.Err)
	}
	if err := json.Unmarshal(res.Object, &v); err != nil {
		t.Fatalf("decode %s: %v", res.Object, err)
	}
	return v
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// JSONEqual compares JSON by value: PostgreSQL's jsonb normalises spacing.
func JSONEqual(got []byte, want string) bool {
	var g, w any
	if json.Unmarshal(got, &g) != nil || json.Unmarshal([]byte(want), &w) != nil {
		return false
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(w)
	return bytes.Equal(gb, wb)
}

// ctx is the context of every call the tests make themselves.
var ctx = context.Background()

// line asks for q of sku wherever placement puts it.
func line(sku string, q int64) stockd.LineRequest { return stockd.LineRequest{SKU: sku, Quantity: q} }

// isNotFound reports whether a store read found nothing.
func isNotFound(err error) bool { return errors.Is(err, stockd.ErrNotFound) }

// storeLedger selects a page of the ledger, of one SKU unless sku is empty.
func storeLedger(sku string, after int64, limit int) store.LedgerListParams {
	return store.LedgerListParams{SKU: sku, After: after, Limit: limit}
}
