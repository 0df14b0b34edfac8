package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/postgres/pgtest"
	"github.com/stockd/stockd/store/storetest"
)

func TestInterpretError(t *testing.T) {
	pgError := func(code string) error { return fmt.Errorf("exec: %w", &pgconn.PgError{Code: code}) }
	tests := []struct {
		name        string
		err         error
		retry       bool
		notFound    bool
		rejected    bool
		unavailable bool
		unchanged   bool
		// cause is the retry's cause, for the engine's metric.
		cause error
	}{
		{name: "serialization failure", err: pgError("40001"), retry: true, cause: store.ErrSerialization},
		{name: "deadlock", err: pgError("40P01"), retry: true, cause: store.ErrDeadlock},
		{name: "unique violation", err: pgError("23505"), retry: true, cause: store.ErrUniqueKey},
		{name: "check violation", err: pgError("23514"), rejected: true},
		{name: "nul byte in text", err: pgError("22021"), rejected: true},
		{name: "untranslatable character", err: pgError("22P05"), rejected: true},
		{name: "trigger refusal", err: pgError("P0001"), rejected: true},
		{name: "no rows", err: pgx.ErrNoRows, notFound: true},
		{name: "admin shutdown", err: pgError("57P01"), unavailable: true},
		{name: "connection failure", err: pgError("08006"), unavailable: true},
		{name: "disk full", err: pgError("53100"), unavailable: true},
		{name: "read-only standby", err: pgError("25006"), unavailable: true},
		{name: "connection refused", err: &net.OpError{Op: "dial", Err: errors.New("connection refused")}, unavailable: true},
		{name: "connection closed", err: fmt.Errorf("query: %w", io.ErrUnexpectedEOF), unavailable: true},
		{name: "deadline", err: fmt.Errorf("query: %w", context.DeadlineExceeded), unchanged: true},
		{name: "other server error", err: pgError("42601"), unchanged: true},
		{name: "not from the server", err: errors.New("boom"), unchanged: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := interpretError(tt.err)
			if !errors.Is(got, tt.err) {
				t.Errorf("interpretError(%v) = %v, lost the original error", tt.err, got)
			}
			if errors.Is(got, store.ErrRetry) != tt.retry {
				t.Errorf("interpretError(%v) is ErrRetry = %v, want %v", tt.err, !tt.retry, tt.retry)
			}
			for _, cause := range []error{store.ErrSerialization, store.ErrDeadlock, store.ErrBusy, store.ErrUniqueKey} {
				if errors.Is(got, cause) != (cause == tt.cause) {
					t.Errorf("interpretError(%v) is %v = %v, want the cause %v", tt.err, cause, !(cause == tt.cause), tt.cause)
				}
			}
			if errors.Is(got, stockd.ErrNotFound) != tt.notFound {
				t.Errorf("interpretError(%v) is ErrNotFound = %v, want %v", tt.err, !tt.notFound, tt.notFound)
			}
			if errors.Is(got, store.ErrRejected) != tt.rejected {
				t.Errorf("interpretError(%v) is ErrRejected = %v, want %v", tt.err, !tt.rejected, tt.rejected)
			}
			if errors.Is(got, store.ErrUnavailable) != tt.unavailable {
				t.Errorf("interpretError(%v) is ErrUnavailable = %v, want %v", tt.err, !tt.unavailable, tt.unavailable)
			}
			if tt.unchanged && got != tt.err {
				t.Errorf("interpretError(%v) = %v, want it unchanged", tt.err, got)
			}
		})
	}
	if interpretError(nil) != nil {
		t.Error("interpretError(nil) != nil")
	}
}

func TestMigrateIdempotent(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("second Migrate: %v", err)
	}
	wantMigrationsRecorded(t, s)
}

func TestMigrateConcurrent(t *testing.T) {
	databaseURL := pgtest.NewDatabaseURL(t)
	const processes = 4
	stores := make([]*Store, processes)
	for i := range stores {
		stores[i] = openTestStore(t, databaseURL)
	}
	var wg sync.WaitGroup
	errs := make([]error, processes)
	for i, s := range stores {
		wg.Go(func() { errs[i] = s.Migrate(t.Context()) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Migrate in process %d: %v", i, err)
		}
	}
	wantMigrationsRecorded(t, stores[0])
}

// wantMigrationsRecorded checks that every embedded migration is recorded
// exactly once.
func wantMigrationsRecorded(t *testing.T, s *Store) {
	t.Helper()
	all, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	var recorded, distinct int
	err = s.pool.QueryRow(t.Context(), `SELECT count(*), count(DISTINCT version) FROM schema_migrations`).Scan(&recorded, &distinct)
	if err != nil {
		t.Fatal(err)
	}
	if recorded != len(all) || distinct != len(all) {
		t.Fatalf("schema_migrations holds %d rows (%d versions), want %d", recorded, distinct, len(all))
	}
}

func TestCheckDurability(t *testing.T) {
	s := newTestStore(t)
	if err := s.CheckDurability(t.Context()); err != nil {
		t.Fatalf("CheckDurability on this machine: %v", err)
	}
}

// wantSQLState fails t unless err carries a server error with code.
func wantSQLState(t *testing.T, what string, err error, code string) {
	t.Helper()
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != code {
		t.Fatalf("%s: error = %v, want SQLSTATE %s", what, err, code)
	}
}

func TestLedgerImmutable(t *testing.T) {
	s := newTestStore(t)
	h := newHarness(t, s)
	h.do(skuCreate("a"))
	h.do(receive("a", 5))
	const restrictViolation = "23001"
	for _, sql := range []string{
		`UPDATE ledger SET on_hand = on_hand + 1`,
		`DELETE FROM ledger`,
		`TRUNCATE ledger`,
	} {
		_, err := s.pool.Exec(t.Context(), sql)
		wantSQLState(t, sql, err, restrictViolation)
	}
	entries, err := s.LedgerList(t.Context(), store.LedgerListParams{})
	if err != nil || len(entries) != 3 || entries[0].After.OnHand != 5 || entries[1].BusinessType != stockd.EventStockBackInStock {
		t.Fatalf("ledger after refused changes = %+v, %v; want the one receipt and its back-in-stock events", entries, err)
	}
}

func TestCountersCheck(t *testing.T) {
	s := newTestStore(t)
	h := newHarness(t, s)
	h.do(skuCreate("a"))
	h.do(receive("a", 5))
	const checkViolation = "23514"
	for _, sql := range []string{
		`UPDATE positions SET on_hand = -1, reserved = 0`,
		`UPDATE positions SET reserved = -1`,
		`UPDATE positions SET committed = -1`,
		`UPDATE positions SET quarantined = -1`,
		`UPDATE positions SET reserved = 6`,
		`UPDATE positions SET reserved = 2, committed = 2, quarantined = 2`,
	} {
		_, err := s.pool.Exec(t.Context(), sql)
		wantSQLState(t, sql, err, checkViolation)
	}

	// Through the seam, a violation is a bug, never a conflict to retry.
	tx, err := s.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer rollback(t, tx)
	key := stockd.PositionKey{SKU: "a", Location: stockd.LocationDefault, Pool: stockd.PoolDefault}
	err = tx.Write(t.Context(), &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: key, Counters: stockd.Counters{OnHand: 1, Reserved: 2}}}})
	wantSQLState(t, "Write of available -1", err, checkViolation)
	if errors.Is(err, store.ErrRetry) {
		t.Fatalf("Write of available -1 = %v, want an error that is not ErrRetry", err)
	}
}

func TestRollbackAfterCommit(t *testing.T) {
	s := newTestStore(t)
	tx, err := s.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(t.Context()); err != nil {
		t.Fatalf("Rollback after Commit = %v, want nil", err)
	}
}

// TestConcurrentCreatorRetries has two transactions create the same SKU: the
// second waits for the first and must learn to retry, not fail.
func TestConcurrentCreatorRetries(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	now := time.Now().UTC()
	write := &stockd.BatchWrites{
		SKUs:         []stockd.SKU{{ID: "a", Unit: "piece", Deduction: stockd.DeductionAtOrder, CreatedAt: now}},
		NewPositions: []stockd.Position{{PositionKey: stockd.PositionKey{SKU: "a", Location: "default", Pool: "normal"}}},
	}
	first, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rollback(t, first)
	if err := first.Write(ctx, write); err != nil {
		t.Fatal(err)
	}
	second, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rollback(t, second)
	done := make(chan error, 1)
	go func() { done <- second.Write(ctx, write) }()
	if err := first.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, store.ErrRetry) {
		t.Fatalf("second creator's Write = %v, want ErrRetry", err)
	}
}

// TestLedgerSeqFollowsBatchOrder checks that seq is assigned in the order
// the batch decided its changes, not in key order.
func TestLedgerSeqFollowsBatchOrder(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	now := time.Now().UTC()
	order := []string{"c", "a", "b", "e", "d"}
	w := &stockd.BatchWrites{}
	for _, sku := range order {
		w.SKUs = append(w.SKUs, stockd.SKU{ID: sku, Unit: "piece", Deduction: stockd.DeductionAtOrder, CreatedAt: now})
		w.Ledger = append(w.Ledger, stockd.LedgerEntry{
			BusinessType: stockd.BusinessReceipt, BusinessID: "k-" + sku,
			Position:  stockd.PositionKey{SKU: sku, Location: "default", Pool: "normal"},
			CreatedAt: now,
		})
	}
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer rollback(t, tx)
	if err := tx.Write(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	entries, err := s.LedgerList(ctx, store.LedgerListParams{})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if e.Position.SKU != order[i] || (i > 0 && e.Seq <= entries[i-1].Seq) {
			t.Fatalf("ledger = %+v, want SKUs in the order %v with rising seq", entries, order)
		}
	}
}

func TestEngineRoundTrip(t *testing.T) {
	s := newTestStore(t)
	ctx := t.Context()
	h := newHarness(t, s)

	sku := h.do(skuCreate("apple"))
	if !sku.Created {
		t.Fatalf("create sku = %+v", sku)
	}
	h.do(receive("apple", 10))
	reserved := h.do(stockd.Command{IdempotencyKey: "order-1", RequestHash: "order-1",
		Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "apple", Quantity: 3}}}})
	r := reserved.Reservation
	if r == nil || r.Status != stockd.StatusPending {
		t.Fatalf("reserve = %+v, want pending", reserved)
	}
	confirmed := h.do(stockd.Command{IdempotencyKey: "confirm-1", RequestHash: "confirm-1",
		Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: r.ID}})
	if confirmed.Reservation == nil || confirmed.Reservation.Status != stockd.StatusConfirmed {
		t.Fatalf("confirm = %+v, want confirmed", confirmed)
	}
	replay := h.do(receive("apple", 10)) // same key as the first receipt
	if !replay.Replayed {
		t.Fatalf("second receipt under one key = %+v, want a replay", replay)
	}

	gotSKU, err := s.SKUGet(ctx, "apple")
	if err != nil || gotSKU.ID != "apple" || gotSKU.CreatedAt.Location() != time.UTC {
		t.Fatalf("SKUGet = %+v, %v", gotSKU, err)
	}
	if _, err := s.SKUGet(ctx, "pear"); !errors.Is(err, stockd.ErrNotFound) {
		t.Fatalf("SKUGet(unknown) = %v, want ErrNotFound", err)
	}
	positions, err := s.PositionListBySKU(ctx, "apple")
	want := stockd.Counters{OnHand: 10, Committed: 3}
	if err != nil || len(positions) != 1 || positions[0].Counters != want {
		t.Fatalf("PositionListBySKU = %+v, %v; want one position with %+v", positions, err, want)
	}
	byID, err := s.ReservationGet(ctx, r.ID)
	if err != nil || byID.Status != stockd.StatusConfirmed || len(byID.Lines) != 1 || byID.Lines[0] != r.Lines[0] {
		t.Fatalf("ReservationGet = %+v, %v; want confirmed with %+v", byID, err, r.Lines)
	}
	byKey, err := s.ReservationGetByKey(ctx, "order-1")
	if err != nil || byKey.ID != r.ID || byKey.Key != "order-1" {
		t.Fatalf("ReservationGetByKey = %+v, %v", byKey, err)
	}
	if _, err := s.ReservationGet(ctx, "nope"); !errors.Is(err, stockd.ErrNotFound) {
		t.Fatalf("ReservationGet(unknown) = %v, want ErrNotFound", err)
	}
	due, err := s.ReservationListDue(ctx, time.Now().Add(time.Hour), 10)
	if err != nil || len(due) != 0 {
		t.Fatalf("ReservationListDue = %v, %v; want none (the one reservation is confirmed)", due, err)
	}

	ledger, err := s.LedgerList(ctx, store.LedgerListParams{SKU: "apple"})
	wantTypes := []string{stockd.BusinessReceipt, stockd.EventStockBackInStock, stockd.EventPoolBackInStock, stockd.BusinessReserve, stockd.BusinessConfirm}
	if err != nil || len(ledger) != len(wantTypes) {
		t.Fatalf("LedgerList = %+v, %v; want %v", ledger, err, wantTypes)
	}
	for i, e := range ledger {
		if e.BusinessType != wantTypes[i] {
			t.Fatalf("ledger[%d] is %s, want %s", i, e.BusinessType, wantTypes[i])
		}
	}
	if ledger[4].After != want {
		t.Fatalf("last ledger entry leaves %+v, want %+v", ledger[4].After, want)
	}
	page, err := s.LedgerList(ctx, store.LedgerListParams{After: ledger[0].Seq, Limit: 1})
	if err != nil || len(page) != 1 || page[0].Seq != ledger[1].Seq {
		t.Fatalf("LedgerList after %d limit 1 = %+v, %v", ledger[0].Seq, page, err)
	}

	var each []stockd.Position
	if err := auditOf(s).PositionEach(ctx, func(p stockd.Position) error { each = append(each, p); return nil }); err != nil || len(each) != 1 {
		t.Fatalf("PositionEach = %+v, %v", each, err)
	}
	var streamed int
	if err := auditOf(s).LedgerEachByPosition(ctx, func(stockd.LedgerEntry) error { streamed++; return nil }); err != nil || streamed != 5 {
		t.Fatalf("LedgerEachByPosition streamed %d, %v; want 5 (3 changes, 2 events)", streamed, err)
	}
	stop := errors.New("stop")
	if err := auditOf(s).LedgerEachByPosition(ctx, func(stockd.LedgerEntry) error { return stop }); err != stop {
		t.Fatalf("LedgerEachByPosition = %v, want fn's error unchanged", err)
	}
	var open []stockd.Reservation
	if err := auditOf(s).ReservationOpenEach(ctx, func(r stockd.Reservation) error { open = append(open, r); return nil }); err != nil || len(open) != 1 {
		t.Fatalf("ReservationOpenEach = %+v, %v", open, err)
	}
}

// harness submits commands through a real engine on a store.
type harness struct {
	t      *testing.T
	engine *engine.Engine
}

func newHarness(t *testing.T, s *Store) *harness {
	e := engine.New(engine.Config{Store: s})
	t.Cleanup(e.Close)
	return &harness{t: t, engine: e}
}

// do submits cmd and fails the test unless it succeeded.
func (h *harness) do(cmd stockd.Command) stockd.Result {
	h.t.Helper()
	res, err := h.engine.Submit(context.Background(), cmd)
	if err != nil || res.Err != nil {
		h.t.Fatalf("%s: %+v, %v", cmd.Kind(), res.Err, err)
	}
	return res
}

func skuCreate(id string) stockd.Command {
	return stockd.Command{IdempotencyKey: "sku-" + id, RequestHash: "sku-" + id,
		Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: id}}}
}

func receive(sku string, quantity int64) stockd.Command {
	key := fmt.Sprintf("receive-%s-%d", sku, quantity)
	return stockd.Command{IdempotencyKey: key, RequestHash: key,
		Op: &stockd.Receive{Position: stockd.PositionKey{SKU: sku}, Quantity: quantity}}
}

func rollback(t *testing.T, tx store.Tx) {
	t.Helper()
	if err := tx.Rollback(context.Background()); err != nil {
		t.Errorf("rollback: %v", err)
	}
}

func BenchmarkBatchReserve(b *testing.B) {
	storetest.BenchmarkBatchReserve(b, func(tb testing.TB) store.Store { return newTestStore(tb) })
}

// auditOf reads the audit streams outside a snapshot, for tests.
func auditOf(s *Store) auditReader { return auditReader{q: s.pool} }

// TestLedgerArchiveGuard: with a sealed, unfinished archive recorded, a
// plain DELETE, UPDATE or TRUNCATE of the ledger is still refused; the
// archive's transaction-local setting lets a DELETE through only at or
// below the cut, never an UPDATE or TRUNCATE, and ends with its
// transaction.
func TestLedgerArchiveGuard(t *testing.T) {
	ctx := t.Context()
	s := newTestStore(t)
	h := newHarness(t, s)
	h.do(skuCreate("a"))
	h.do(receive("a", 5))
	h.do(receive("a", 2))
	// The first receipt also brings its derived events (back in stock at
	// the position and in the pool); the guard is tested on the receipts.
	all, err := s.LedgerList(ctx, store.LedgerListParams{})
	if err != nil || len(all) != 4 {
		t.Fatalf("ledger = %+v, %v; want 2 receipts and the first one's 2 events", all, err)
	}
	var entries []stockd.LedgerEntry
	for _, entry := range all {
		if !stockd.EventOnly(entry.BusinessType) {
			entries = append(entries, entry)
		}
	}
	if len(entries) != 2 || entries[0].BusinessType != stockd.BusinessReceipt || entries[1].BusinessType != stockd.BusinessReceipt {
		t.Fatalf("ledger = %+v; want 2 receipts besides the events", all)
	}
	before := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	cut := entries[0].Seq
	if _, err := s.LedgerArchiveStart(ctx, store.LedgerArchiveStartParams{Before: before, CutSeq: cut, Path: "/a.jsonl", At: time.Now()}); err != nil {
		t.Fatal(err)
	}
	deleteCut := fmt.Sprintf(`DELETE FROM ledger WHERE seq = %d`, cut)
	// Not sealed yet: even the archive's setting deletes nothing.
	inArchive := func(sql string) error {
		tx, err := s.pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback(ctx) //nolint:errcheck // rolled back on purpose
		if _, err := tx.Exec(ctx, `SET LOCAL stockd.archive = 'on'`); err != nil {
			t.Fatal(err)
		}
		_, err = tx.Exec(ctx, sql)
		return err
	}
	const restrictViolation = "23001"
	wantSQLState(t, "delete before the seal", inArchive(deleteCut), restrictViolation)
	if _, err := s.LedgerArchiveSeal(ctx, store.LedgerArchiveSealParams{Before: before, SHA256: strings.Repeat("0", 64), Entries: 1}); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`UPDATE ledger SET on_hand = on_hand + 1`,
		`DELETE FROM ledger`,
		deleteCut,
		`TRUNCATE ledger`,
	} {
		_, err := s.pool.Exec(ctx, sql)
		wantSQLState(t, sql, err, restrictViolation)
	}
	for _, sql := range []string{
		`UPDATE ledger SET on_hand = on_hand + 1`,
		fmt.Sprintf(`DELETE FROM ledger WHERE seq = %d`, entries[1].Seq), // above the cut
		fmt.Sprintf(`DELETE FROM ledger WHERE seq = %d`, all[1].Seq),     // an event above the cut
		`TRUNCATE ledger`,
	} {
		wantSQLState(t, "in the archive's transaction: "+sql, inArchive(sql), restrictViolation)
	}
	if err := inArchive(deleteCut); err != nil {
		t.Fatalf("in the archive's transaction, %s: %v; want it let through", deleteCut, err)
	}
	// SET LOCAL ended with the transaction: a later one on the same
	// connection is refused again.
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SET LOCAL stockd.archive = 'on'`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = conn.Exec(ctx, deleteCut)
	wantSQLState(t, "after the archive's transaction", err, restrictViolation)
	if got, err := s.LedgerList(ctx, store.LedgerListParams{}); err != nil || !reflect.DeepEqual(got, all) {
		t.Fatalf("ledger after refused and rolled back changes = %+v, %v; want every entry as it was: %+v", got, err, all)
	}
}

func TestExceptionsBackfill(t *testing.T) {
	s := newTestStore(t)
	storetest.ExceptionsBackfill(t, s, func() error {
		_, err := s.pool.Exec(t.Context(), `DROP TABLE exceptions; DELETE FROM schema_migrations WHERE version = 13`)
		return err
	})
}
