package postgres

import (
	"strings"
	"testing"
)

// TestLookupPlanWithoutStatistics: on a database never analysed, a batch's
// = ANY($1) lookup prepared while its table was small still uses the index
// once the table has grown (plan_cache_mode = force_custom_plan, see Open).
// With PostgreSQL's default plan cache the prepared statement keeps the
// generic plan it chose on the small table, a sequential scan.
func TestLookupPlanWithoutStatistics(t *testing.T) {
	const rows = 50_000
	ctx := t.Context()
	s := newTestStore(t)
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Conn().Prepare(ctx, "idempotency_get", queryIdempotencyGet); err != nil {
		t.Fatal(err)
	}
	// Past the five executions after which the default may go generic.
	for range 10 {
		if _, err := conn.Exec(ctx, "EXECUTE idempotency_get('{key-1}')"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `
INSERT INTO idempotency_keys (key, request_hash, result, created_at)
SELECT 'key-' || g, 'hash', '\x7b7d', now() FROM generate_series(1, $1::int) g`, rows); err != nil {
		t.Fatal(err)
	}
	var plan strings.Builder
	lines, err := conn.Query(ctx, "EXPLAIN EXECUTE idempotency_get('{key-1,key-2}')")
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
}
