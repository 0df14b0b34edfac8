package postgres

import (
	"strings"
	"testing"

	"github.com/stockd/stockd"
)

// TestLookupPlanWithoutStatistics: on a database never analysed, a batch's
// = ANY($1) lookup, prepared and run past the five executions after which
// PostgreSQL may keep a generic plan while its table was empty, uses the
// index once the table has grown. A batch's reads are planned for each
// execution's arguments and the tables' current size (queryBatchBegin), so
// no plan made on a small table outlives it; the test checks that the
// setting is in force while the batch reads and gone once it writes, since
// a generic plan may happen to keep the index on one server version and
// not on another.
func TestLookupPlanWithoutStatistics(t *testing.T) {
	const rows = 50_000
	ctx := t.Context()
	s := newTestStore(t)
	begun, err := s.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer begun.Rollback(ctx)
	tx := begun.(*Tx)
	planCacheMode := func() string {
		var mode string
		if err := tx.tx.QueryRow(ctx, "SHOW plan_cache_mode").Scan(&mode); err != nil {
			t.Fatal(err)
		}
		return mode
	}
	if got := planCacheMode(); got != "force_custom_plan" {
		t.Errorf("plan_cache_mode while reading = %s, want force_custom_plan", got)
	}
	if _, err := tx.tx.Conn().Prepare(ctx, "idempotency_get", queryIdempotencyGet); err != nil {
		t.Fatal(err)
	}
	defer tx.tx.Conn().Deallocate(ctx, "idempotency_get")
	// Past the five executions after which the default may go generic.
	for range 10 {
		if _, err := tx.tx.Exec(ctx, "EXECUTE idempotency_get('{key-1}')"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tx.tx.Exec(ctx, `
INSERT INTO idempotency_keys (key, request_hash, result, created_at)
SELECT 'key-' || g, 'hash', '\x7b7d', now() FROM generate_series(1, $1::int) g`, rows); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	lines, err := tx.tx.Query(ctx, "EXPLAIN EXECUTE idempotency_get('{key-1,key-2}')")
	if err != nil {
		t.Fatal(err)
	}
	for lines.Next() {
		var line string
		if err := lines.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if err := lines.Err(); err != nil {
		t.Fatal(err)
	}
	if got := plan.String(); strings.Contains(got, "Seq Scan") || !strings.Contains(got, "Index") {
		t.Errorf("lookup in %d unanalysed rows, plan:\n%s\nwant an index scan", rows, got)
	}
	if _, err := tx.BatchRowsRead(ctx, &stockd.Touches{}); err != nil {
		t.Fatal(err)
	}
	if got := planCacheMode(); got == "force_custom_plan" {
		t.Errorf("plan_cache_mode after the reads = %s, want the session's (auto)", got)
	}
}
