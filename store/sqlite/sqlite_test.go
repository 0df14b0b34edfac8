package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storetest"
)

func TestParseURL(t *testing.T) {
	tests := []struct {
		url     string
		want    string
		wantErr bool
	}{
		{url: "sqlite://stockd.db", want: "stockd.db"},
		{url: "sqlite://data/stockd.db", want: "data/stockd.db"},
		{url: "sqlite:///var/lib/stockd/stockd.db", want: "/var/lib/stockd/stockd.db"},
		{url: "sqlite://", wantErr: true},
		{url: "sqlite://:memory:", wantErr: true},
		{url: "sqlite://file:stockd.db", wantErr: true},
		{url: "sqlite://stockd.db?mode=ro", wantErr: true},
		{url: "sqlite:stockd.db", wantErr: true},
		{url: "postgres://localhost/stockd", wantErr: true},
		{url: "stockd.db", wantErr: true},
		{url: "", wantErr: true},
	}
	for _, tt := range tests {
		got, err := ParseURL(tt.url)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParseURL(%q) = %q, want an error", tt.url, got)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseURL(%q) = %q, %v, want %q", tt.url, got, err, tt.want)
		}
	}
}

func TestMigrateIsIdempotent(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	for range 2 {
		if err := s.Migrate(ctx); err != nil {
			t.Fatalf("Migrate again: %v", err)
		}
	}
	all, err := migrations()
	if err != nil {
		t.Fatal(err)
	}
	if got := count(t, s.writer, "SELECT count(*) FROM schema_migrations"); got != len(all) {
		t.Errorf("schema_migrations has %d rows, want %d", got, len(all))
	}
	locations, err := s.LocationList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(locations) != 1 || locations[0].ID != stockd.LocationDefault || locations[0].Priority != 0 {
		t.Errorf("locations = %+v, want only %q at priority 0", locations, stockd.LocationDefault)
	}
}

// TestMigrateConcurrently stands for two processes migrating one file at
// start-up: both must succeed and apply each migration once.
func TestMigrateConcurrently(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "stockd.db")
	stores := make([]*Store, 4)
	for i := range stores {
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		stores[i] = s
	}
	var wg sync.WaitGroup
	errs := make([]error, len(stores))
	for i, s := range stores {
		wg.Go(func() { errs[i] = s.Migrate(ctx) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("Migrate of store %d: %v", i, err)
		}
	}
	if got := count(t, stores[0].writer, "SELECT count(*) FROM locations"); got != 1 {
		t.Errorf("%d locations, want the default one only", got)
	}
}

func TestPragmasOnEveryConnection(t *testing.T) {
	s := newTestStore(t)
	pools := []struct {
		name          string
		db            *sql.DB
		connections   int
		wantQueryOnly int
		// The writer leaves checkpoints to the checkpointer and keeps
		// its statement journals in memory.
		wantAutocheckpoint int
		wantTempStore      int
	}{
		{"writer", s.writer, 1, 0, 0, 2},
		{"reader", s.reader, readConnectionsMax, 1, 1000, 0},
		{"checkpoints", s.checkpoints, 1, 0, 1000, 0},
	}
	ctx := context.Background()
	for _, pool := range pools {
		// Hold every connection of the pool at once, so each is checked.
		for i := range pool.connections {
			conn, err := pool.db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			var journalMode string
			if err := conn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&journalMode); err != nil {
				t.Fatal(err)
			}
			if journalMode != "wal" {
				t.Errorf("%s connection %d: journal_mode = %q, want wal", pool.name, i, journalMode)
			}
			intPragmas := []struct {
				pragma string
				want   int
			}{
				{"synchronous", 2}, // FULL
				{"foreign_keys", 1},
				{"busy_timeout", int(busyTimeout.Milliseconds())},
				{"query_only", pool.wantQueryOnly},
				{"wal_autocheckpoint", pool.wantAutocheckpoint},
				{"temp_store", pool.wantTempStore},
			}
			for _, p := range intPragmas {
				var got int
				if err := conn.QueryRowContext(ctx, "PRAGMA "+p.pragma).Scan(&got); err != nil {
					t.Fatal(err)
				}
				if got != p.want {
					t.Errorf("%s connection %d: %s = %d, want %d", pool.name, i, p.pragma, got, p.want)
				}
			}
		}
	}
}

func TestReaderRefusesWrites(t *testing.T) {
	s := newTestStore(t)
	_, err := s.reader.Exec("INSERT INTO skus (id, created_at) VALUES ('A', 0)")
	if sqliteCode(err) != sqlite3.SQLITE_READONLY {
		t.Fatalf("insert on the read pool: err = %v, want SQLITE_READONLY", err)
	}
}

// TestReadsRunBesideTheWriter shows what WAL buys: a batch holding the
// write lock does not block the HTTP reads.
func TestReadsRunBesideTheWriter(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	submit(t, newEngine(t, s), skuCreate("A"))
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	readCtx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, err := s.SKUGet(readCtx, "A"); err != nil {
		t.Fatalf("SKUGet while a batch holds the writer: %v", err)
	}
	// Hold every reader connection at once, so that the ones opened while
	// the batch holds the write lock, running their pragmas, are tried too.
	for i := range readConnectionsMax {
		conn, err := s.reader.Conn(readCtx)
		if err != nil {
			t.Fatalf("reader connection %d while a batch holds the writer: %v", i, err)
		}
		defer conn.Close()
		var n int
		if err := conn.QueryRowContext(readCtx, "SELECT count(*) FROM skus").Scan(&n); err != nil || n != 1 {
			t.Fatalf("reader connection %d: %d skus, %v; want 1", i, n, err)
		}
	}
}

func TestLedgerIsImmutable(t *testing.T) {
	s := newTestStore(t)
	e := newEngine(t, s)
	submit(t, e, skuCreate("A"))
	submit(t, e, receive("A", 5))
	for _, statement := range []string{
		"UPDATE ledger SET d_on_hand = 500, on_hand = 500",
		"DELETE FROM ledger",
		"DELETE FROM ledger WHERE seq = 1",
	} {
		_, err := s.writer.Exec(statement)
		if sqliteCode(err) != sqlite3.SQLITE_CONSTRAINT_TRIGGER {
			t.Errorf("%s: err = %v, want SQLITE_CONSTRAINT_TRIGGER", statement, err)
		}
		if errors.Is(interpretError(err), store.ErrRetry) {
			t.Errorf("%s: interpreted as retryable", statement)
		}
	}
	entries, err := s.LedgerList(context.Background(), store.LedgerListParams{})
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 3 || entries[0].Delta.OnHand != 5 || entries[1].BusinessType != stockd.EventStockBackInStock || entries[2].BusinessType != stockd.EventPoolBackInStock {
		t.Errorf("ledger = %+v, want the one receipt of 5 and its back-in-stock events, unchanged", entries)
	}
}

func TestCheckConstraintsRejectNegativeBooks(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	e := newEngine(t, s)
	submit(t, e, skuCreate("A"))
	submit(t, e, receive("A", 5))
	key := stockd.PositionKey{SKU: "A", Location: stockd.LocationDefault, Pool: stockd.PoolDefault}
	tests := []struct {
		name     string
		counters stockd.Counters
	}{
		{"on_hand", stockd.Counters{OnHand: -1}},
		{"reserved", stockd.Counters{OnHand: 5, Reserved: -1}},
		{"committed", stockd.Counters{OnHand: 5, Committed: -1}},
		{"quarantined", stockd.Counters{OnHand: 5, Quarantined: -1}},
		{"available", stockd.Counters{OnHand: 5, Reserved: 2, Committed: 2, Quarantined: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tx, err := s.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			err = tx.Write(ctx, &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: key, Counters: tt.counters}}})
			if sqliteCode(err) != sqlite3.SQLITE_CONSTRAINT_CHECK {
				t.Errorf("write %+v: err = %v, want SQLITE_CONSTRAINT_CHECK", tt.counters, err)
			}
			if errors.Is(err, store.ErrRetry) {
				t.Errorf("write %+v: a CHECK violation is a bug, not a conflict to retry", tt.counters)
			}
		})
	}
	positions, err := s.PositionListBySKU(ctx, "A")
	if err != nil {
		t.Fatal(err)
	}
	if len(positions) != 1 || positions[0].Counters != (stockd.Counters{OnHand: 5}) {
		t.Errorf("positions = %+v, want on_hand 5 untouched", positions)
	}
}

func TestInterpretError(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	submit(t, newEngine(t, s), skuCreate("A"))

	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	err = tx.Write(ctx, &stockd.BatchWrites{SKUs: []stockd.SKU{{ID: "A", Unit: "piece", Deduction: stockd.DeductionAtOrder}}})
	if !errors.Is(err, store.ErrRetry) {
		t.Errorf("insert of an existing sku: err = %v, want store.ErrRetry", err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}

	if _, err := s.SKUGet(ctx, "nope"); !errors.Is(err, stockd.ErrNotFound) {
		t.Errorf("SKUGet of an unknown sku: err = %v, want stockd.ErrNotFound", err)
	}
	if _, err := s.ReservationGet(ctx, "nope"); !errors.Is(err, stockd.ErrNotFound) {
		t.Errorf("ReservationGet of an unknown id: err = %v, want stockd.ErrNotFound", err)
	}
	if _, err := s.ReservationGetByKey(ctx, ""); !errors.Is(err, stockd.ErrNotFound) {
		t.Errorf("ReservationGetByKey of the empty key: err = %v, want stockd.ErrNotFound", err)
	}
}

// TestBusyIsRetryable takes the write lock from another connection, as
// another process would, and checks that losing to it is store.ErrRetry.
func TestBusyIsRetryable(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "stockd.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	// No busy_timeout: the other writer gives up at once instead of waiting.
	other, err := sql.Open("sqlite", path+"?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	_, err = other.BeginTx(ctx, nil)
	if sqliteCode(err)&primaryCodeMask != sqlite3.SQLITE_BUSY {
		t.Fatalf("second writer: err = %v, want SQLITE_BUSY", err)
	}
	if !errors.Is(interpretError(err), store.ErrRetry) {
		t.Errorf("interpretError(%v) is not store.ErrRetry", err)
	}
}

// TestAppliersShareOneWriter runs concurrent batches through several
// appliers: the one writer connection serialises them, so none conflicts
// and stock is never oversold.
func TestAppliersShareOneWriter(t *testing.T) {
	const stock, requests = 50, 200
	s := newTestStore(t)
	e := engine.New(engine.Config{Store: s, Appliers: 4})
	t.Cleanup(e.Close)
	submit(t, e, skuCreate("A"))
	submit(t, e, receive("A", stock))
	var wg sync.WaitGroup
	results := make([]stockd.Result, requests)
	errs := make([]error, requests)
	for i := range requests {
		wg.Go(func() {
			cmd := reserve("A", 1)
			cmd.IdempotencyKey = fmt.Sprintf("reserve-%d", i)
			cmd.RequestHash = cmd.IdempotencyKey
			results[i], errs[i] = e.Submit(context.Background(), cmd)
		})
	}
	wg.Wait()
	reserved := 0
	for i := range requests {
		switch {
		case errs[i] != nil:
			t.Errorf("request %d: %v", i, errs[i])
		case results[i].Err == nil:
			reserved++
		case results[i].Err.Code != stockd.CodeInsufficientStock:
			t.Errorf("request %d: %v", i, results[i].Err)
		}
	}
	if reserved != stock {
		t.Errorf("%d reservations succeeded, want %d", reserved, stock)
	}
	positions, err := s.PositionListBySKU(context.Background(), "A")
	if err != nil {
		t.Fatal(err)
	}
	want := stockd.Counters{OnHand: stock, Reserved: stock}
	if len(positions) != 1 || positions[0].Counters != want {
		t.Errorf("positions = %+v, want %+v", positions, want)
	}
}

func TestRollbackAfterCommitIsNoOp(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Errorf("Rollback after Commit = %v, want nil", err)
	}
}

func TestPositionsEnsureSkipsUnknownSKUAndLocation(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	submit(t, newEngine(t, s), skuCreate("A"))
	tx, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	keys := []stockd.PositionKey{
		{SKU: "A", Location: "default", Pool: "normal"},
		{SKU: "A", Location: "nowhere", Pool: "normal"},
		{SKU: "Z", Location: "default", Pool: "normal"},
	}
	for range 2 { // the second call finds the first's row and leaves it
		if err := tx.PositionsEnsure(ctx, keys); err != nil {
			t.Fatal(err)
		}
	}
	positions, err := tx.PositionsLock(ctx, []string{"A", "Z"})
	if err != nil {
		t.Fatal(err)
	}
	want := []stockd.Position{{PositionKey: keys[0]}}
	if !reflect.DeepEqual(positions, want) {
		t.Errorf("positions = %+v, want %+v", positions, want)
	}
}

// TestKeylessReservations: reservations without an idempotency key (made by
// tests and internal callers) must not collide on the unique key column.
func TestKeylessReservations(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	e := newEngine(t, s)
	submit(t, e, skuCreate("A"))
	submit(t, e, receive("A", 5))
	for range 2 {
		cmd := reserve("A", 1)
		cmd.IdempotencyKey = ""
		submit(t, e, cmd)
	}
	var open int
	if err := auditOf(s).ReservationOpenEach(ctx, func(r stockd.Reservation) error {
		if r.Key != "" {
			t.Errorf("reservation %s key = %q, want empty", r.ID, r.Key)
		}
		open++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if open != 2 {
		t.Errorf("%d open reservations, want 2", open)
	}
}

// TestRoundTrip drives the real engine through the store and reads back
// every book, then reopens the file.
func TestRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "stockd.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	e := engine.New(engine.Config{Store: s})

	sku := submit(t, e, skuCreate("A")).SKU
	submit(t, e, receive("A", 10))
	reserved := submit(t, e, reserve("A", 3)).Reservation
	if reserved.Status != stockd.StatusPending {
		t.Fatalf("reserve: status %s, want pending", reserved.Status)
	}
	confirmed := submit(t, e, stockd.Command{
		IdempotencyKey: "confirm-1", RequestHash: "confirm-1",
		Op: &stockd.Transition{Action: stockd.KindConfirm, ReservationID: reserved.ID},
	}).Reservation
	if confirmed.Status != stockd.StatusConfirmed {
		t.Fatalf("confirm: status %s, want confirmed", confirmed.Status)
	}
	shortCmd := reserve("A", 2)
	shortCmd.IdempotencyKey, shortCmd.RequestHash = "reserve-short", "reserve-short"
	shortCmd.Op.(*stockd.Reserve).TTL = time.Second
	short := submit(t, e, shortCmd).Reservation

	// A replay answers from the stored record, through IdempotencyGet.
	replay, err := e.Submit(ctx, receive("A", 10))
	if err != nil || !replay.Replayed {
		t.Fatalf("replayed receive: %+v, %v, want Replayed", replay, err)
	}
	e.Close()

	checkBooks := func(t *testing.T, s *Store) {
		t.Helper()
		gotSKU, err := s.SKUGet(ctx, "A")
		if err != nil {
			t.Fatal(err)
		}
		if !gotSKU.CreatedAt.Equal(sku.CreatedAt) || gotSKU.CreatedAt.Location() != time.UTC {
			t.Errorf("sku created_at = %v, want %v in UTC", gotSKU.CreatedAt, sku.CreatedAt)
		}
		gotSKU.CreatedAt = sku.CreatedAt
		if gotSKU != *sku {
			t.Errorf("SKUGet = %+v, want %+v", gotSKU, *sku)
		}

		wantCounters := stockd.Counters{OnHand: 10, Reserved: 2, Committed: 3}
		positions, err := s.PositionListBySKU(ctx, "A")
		if err != nil {
			t.Fatal(err)
		}
		if len(positions) != 1 || positions[0].Counters != wantCounters {
			t.Errorf("PositionListBySKU = %+v, want one position with %+v", positions, wantCounters)
		}
		var each []stockd.Position
		if err := auditOf(s).PositionEach(ctx, collect(&each)); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(each, positions) {
			t.Errorf("PositionEach = %+v, want %+v", each, positions)
		}

		gotReservation, err := s.ReservationGet(ctx, reserved.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(gotReservation, *confirmed) {
			t.Errorf("ReservationGet = %+v, want %+v", gotReservation, *confirmed)
		}
		byKey, err := s.ReservationGetByKey(ctx, reserved.Key)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(byKey, *confirmed) {
			t.Errorf("ReservationGetByKey = %+v, want %+v", byKey, *confirmed)
		}
		var open []stockd.Reservation
		if err := auditOf(s).ReservationOpenEach(ctx, collect(&open)); err != nil {
			t.Fatal(err)
		}
		if len(open) != 2 {
			t.Errorf("ReservationOpenEach gave %d reservations, want the confirmed and the pending one", len(open))
		}

		due, err := s.ReservationListDue(ctx, short.ExpiresAt, 10)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(due, []string{short.ID}) {
			t.Errorf("ReservationListDue(at its deadline) = %v, want [%s]", due, short.ID)
		}
		due, err = s.ReservationListDue(ctx, short.ExpiresAt.Add(-time.Microsecond), 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(due) != 0 {
			t.Errorf("ReservationListDue(before its deadline) = %v, want none", due)
		}

		wantTypes := []string{stockd.BusinessReceipt, stockd.EventStockBackInStock, stockd.EventPoolBackInStock,
			stockd.BusinessReserve, stockd.BusinessConfirm, stockd.BusinessReserve}
		ledger, err := s.LedgerList(ctx, store.LedgerListParams{SKU: "A"})
		if err != nil {
			t.Fatal(err)
		}
		if got := businessTypes(ledger); !reflect.DeepEqual(got, wantTypes) {
			t.Errorf("LedgerList types = %v, want %v", got, wantTypes)
		}
		if last := ledger[len(ledger)-1]; last.After != wantCounters || last.ReservationID != short.ID {
			t.Errorf("last entry = %+v, want after %+v of reservation %s", last, wantCounters, short.ID)
		}
		page, err := s.LedgerList(ctx, store.LedgerListParams{After: ledger[1].Seq, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) != 1 || page[0] != ledger[2] {
			t.Errorf("LedgerList after %d limit 1 = %+v, want %+v", ledger[1].Seq, page, ledger[2])
		}
		var byPosition []stockd.LedgerEntry
		if err := auditOf(s).LedgerEachByPosition(ctx, collect(&byPosition)); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(byPosition, ledger) {
			t.Errorf("LedgerEachByPosition = %+v, want %+v", byPosition, ledger)
		}
	}

	t.Run("before reopening", func(t *testing.T) { checkBooks(t, s) })
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	reopened, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if err := reopened.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	t.Run("after reopening", func(t *testing.T) { checkBooks(t, reopened) })
}

func TestEachStopsAtFirstError(t *testing.T) {
	s := newTestStore(t)
	e := newEngine(t, s)
	submit(t, e, skuCreate("A"))
	submit(t, e, skuCreate("B"))
	submit(t, e, receive("A", 1))
	submit(t, e, receive("B", 1))
	errDone := errors.New("done")
	calls := 0
	err := auditOf(s).PositionEach(context.Background(), func(stockd.Position) error {
		calls++
		return errDone
	})
	if !errors.Is(err, errDone) || calls != 1 {
		t.Errorf("PositionEach: err = %v after %d calls, want errDone after 1", err, calls)
	}
}

// newEngine starts an engine on s and closes it before s closes.
func newEngine(t *testing.T, s *Store) *engine.Engine {
	t.Helper()
	e := engine.New(engine.Config{Store: s})
	t.Cleanup(e.Close)
	return e
}

func submit(t *testing.T, e *engine.Engine, cmd stockd.Command) stockd.Result {
	t.Helper()
	r, err := e.Submit(context.Background(), cmd)
	if err != nil {
		t.Fatalf("submit %s: %v", cmd.Kind(), err)
	}
	if r.Err != nil {
		t.Fatalf("submit %s: %v", cmd.Kind(), r.Err)
	}
	return r
}

func skuCreate(id string) stockd.Command {
	return stockd.Command{
		IdempotencyKey: "sku-" + id, RequestHash: "sku-" + id,
		Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: id, Name: "SKU " + id}},
	}
}

func receive(sku string, quantity int64) stockd.Command {
	return stockd.Command{
		IdempotencyKey: "receive-" + sku, RequestHash: "receive-" + sku,
		Op: &stockd.Receive{Position: stockd.PositionKey{SKU: sku}, Quantity: quantity},
	}
}

func reserve(sku string, quantity int64) stockd.Command {
	return stockd.Command{
		IdempotencyKey: "reserve-" + sku, RequestHash: "reserve-" + sku,
		Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: sku, Quantity: quantity}}},
	}
}

func collect[T any](into *[]T) func(T) error {
	return func(v T) error {
		*into = append(*into, v)
		return nil
	}
}

func businessTypes(entries []stockd.LedgerEntry) []string {
	types := make([]string, len(entries))
	for i, e := range entries {
		types[i] = e.BusinessType
	}
	return types
}

func count(t *testing.T, db *sql.DB, query string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(query).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

// sqliteCode returns the extended result code of a driver error in err's
// chain, or 0.
func sqliteCode(err error) int {
	var sqliteErr *sqlite.Error
	if errors.As(err, &sqliteErr) {
		return sqliteErr.Code()
	}
	return 0
}

// auditOf reads the audit streams outside a snapshot, for tests.
func auditOf(s *Store) auditReader { return auditReader{q: s.reader} }

// TestLedgerArchiveGuard: with a sealed, unfinished archive recorded, a
// plain DELETE or UPDATE of the ledger is still refused; inside a
// transaction holding the guard row a DELETE passes only at or below the
// cut, an UPDATE never.
func TestLedgerArchiveGuard(t *testing.T) {
	ctx := context.Background()
	s := newTestStore(t)
	e := newEngine(t, s)
	submit(t, e, skuCreate("A"))
	submit(t, e, receive("A", 5))
	second := receive("A", 2)
	second.IdempotencyKey, second.RequestHash = "receive-A-2", "receive-A-2"
	submit(t, e, second)
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
	deleteCut := fmt.Sprintf("DELETE FROM ledger WHERE seq = %d", cut)
	inArchive := func(statement string) error {
		tx, err := s.writer.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer tx.Rollback() //nolint:errcheck // rolled back on purpose
		if _, err := tx.ExecContext(ctx, "INSERT INTO ledger_archive_guard (id) VALUES (1)"); err != nil {
			t.Fatal(err)
		}
		_, err = tx.ExecContext(ctx, statement)
		return err
	}
	refused := func(what string, err error) {
		t.Helper()
		if sqliteCode(err) != sqlite3.SQLITE_CONSTRAINT_TRIGGER {
			t.Errorf("%s: err = %v, want SQLITE_CONSTRAINT_TRIGGER", what, err)
		}
	}
	refused("delete before the seal", inArchive(deleteCut))
	if _, err := s.LedgerArchiveSeal(ctx, store.LedgerArchiveSealParams{Before: before, SHA256: strings.Repeat("0", 64), Entries: 1}); err != nil {
		t.Fatal(err)
	}
	for _, statement := range []string{"UPDATE ledger SET on_hand = on_hand + 1", "DELETE FROM ledger", deleteCut} {
		_, err := s.writer.Exec(statement)
		refused(statement, err)
	}
	for _, statement := range []string{"UPDATE ledger SET on_hand = on_hand + 1", fmt.Sprintf("DELETE FROM ledger WHERE seq = %d", entries[1].Seq),
		fmt.Sprintf("DELETE FROM ledger WHERE seq = %d", all[1].Seq), "DELETE FROM ledger"} { // the second receipt and an event: above the cut
		refused("with the guard: "+statement, inArchive(statement))
	}
	if err := inArchive(deleteCut); err != nil {
		t.Fatalf("with the guard, %s: %v; want it let through", deleteCut, err)
	}
	if _, err := s.LedgerArchiveSeal(ctx, store.LedgerArchiveSealParams{Before: before, SHA256: strings.Repeat("1", 64), Entries: 1}); !errors.Is(err, store.ErrArchiveState) {
		t.Errorf("second seal: %v; want ErrArchiveState", err)
	}
	if _, err := s.writer.Exec("UPDATE ledger_archives SET sha256 = ?", strings.Repeat("2", 64)); sqliteCode(err) != sqlite3.SQLITE_CONSTRAINT_TRIGGER {
		t.Errorf("rewriting a recorded sha256: %v; want the trigger's refusal", err)
	}
	if got, err := s.LedgerList(ctx, store.LedgerListParams{}); err != nil || !reflect.DeepEqual(got, all) {
		t.Fatalf("ledger after refused and rolled back changes = %+v, %v; want every entry as it was: %+v", got, err, all)
	}
}

func TestExceptionsBackfill(t *testing.T) {
	s := newTestStore(t)
	storetest.ExceptionsBackfill(t, s, func() error {
		_, err := s.writer.ExecContext(t.Context(), `DROP TABLE exceptions; DELETE FROM schema_migrations WHERE version = 13`)
		return err
	})
}
