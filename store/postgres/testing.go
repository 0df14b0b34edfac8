package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestDatabaseURLEnv names the environment variable with the database that
// tests run against, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const TestDatabaseURLEnv = "STOCKD_TEST_POSTGRES_URL"

// testCleanupTimeout bounds dropping a test's schema.
const testCleanupTimeout = 30 * time.Second

// NewTestStore returns a migrated Store in a fresh schema of the database
// named by STOCKD_TEST_POSTGRES_URL, closed and dropped when t ends. It
// skips t when the variable is unset and fails t when the database cannot
// be reached, so CI with a database never silently skips.
func NewTestStore(t testing.TB) *Store {
	t.Helper()
	s := openTestStore(t, newTestSchema(t))
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatalf("migrate test schema: %v", err)
	}
	return s
}

// NewTestDatabaseURL returns the URL of a fresh, empty schema of the
// database named by STOCKD_TEST_POSTGRES_URL, dropped when t ends, for
// tests that open the database themselves (the serve wiring, drills). It
// skips t when the variable is unset.
func NewTestDatabaseURL(t testing.TB) string {
	t.Helper()
	return newTestSchema(t)
}

// newTestSchema creates an empty schema with a random name, dropped when t
// ends, and returns a database URL whose search_path selects it.
func newTestSchema(t testing.TB) string {
	t.Helper()
	base := os.Getenv(TestDatabaseURLEnv)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", TestDatabaseURLEnv)
	}
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		t.Fatalf("random schema name: %v", err)
	}
	schema := "stockd_test_" + hex.EncodeToString(random)
	quoted := pgx.Identifier{schema}.Sanitize()
	admin(t, base, "CREATE SCHEMA "+quoted)
	t.Cleanup(func() { admin(t, base, "DROP SCHEMA "+quoted+" CASCADE") })
	return testURL(t, base, schema)
}

// admin runs one statement on a connection of its own.
func admin(t testing.TB, base, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), testCleanupTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", TestDatabaseURLEnv, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// testPoolParams make a test's pool give idle connections back within a
// second or two: suites open a store per case (a property test, one per
// run), and pools that kept theirs until the test ends would exhaust the
// server's max_connections.
var testPoolParams = [][2]string{
	{"pool_max_conns", "4"},
	{"pool_max_conn_idle_time", "1s"},
	{"pool_health_check_period", "1s"},
}

// testURL returns base with search_path set to schema and testPoolParams
// added, for a URL or a key=value connection string.
func testURL(t testing.TB, base, schema string) string {
	t.Helper()
	params := append([][2]string{{"search_path", schema}}, testPoolParams...)
	if !strings.Contains(base, "://") {
		for _, p := range params {
			base += " " + p[0] + "=" + p[1]
		}
		return base
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", TestDatabaseURLEnv, err)
	}
	q := u.Query()
	for _, p := range params {
		q.Set(p[0], p[1])
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// openTestStore opens a Store on databaseURL, closed when t ends.
func openTestStore(t testing.TB, databaseURL string) *Store {
	t.Helper()
	s, err := Open(t.Context(), databaseURL, Config{})
	if err != nil {
		t.Fatalf("open test store: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close test store: %v", err)
		}
	})
	return s
}
