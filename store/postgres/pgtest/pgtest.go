// Package pgtest gives each test an empty PostgreSQL schema of its own, in
// the database named by STOCKD_TEST_POSTGRES_URL.
//
// It hands out database URLs, not stores: store/postgres's own tests use it,
// and they could not import a package that imports store/postgres. Tests of
// other packages get a migrated store from internal/testdb.
package pgtest

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

// DatabaseURLEnv names the environment variable with the database that
// tests run against, e.g.
// postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const DatabaseURLEnv = "STOCKD_TEST_POSTGRES_URL"

// cleanupTimeout bounds creating and dropping a test's schema.
const cleanupTimeout = 30 * time.Second

// NewDatabaseURL returns the URL of a fresh, empty schema of the database
// named by STOCKD_TEST_POSTGRES_URL, dropped when t ends; stores opened on
// it must be closed first (register their cleanup after this call). It
// skips t when the variable is unset and fails t when the database cannot
// be reached, so CI with a database never silently skips.
func NewDatabaseURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(DatabaseURLEnv)
	if base == "" {
		t.Skipf("PostgreSQL tests skipped: set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", DatabaseURLEnv)
	}
	random := make([]byte, 8)
	if _, err := rand.Read(random); err != nil {
		t.Fatalf("random schema name: %v", err)
	}
	schema := "stockd_test_" + hex.EncodeToString(random)
	quoted := pgx.Identifier{schema}.Sanitize()
	admin(t, base, "CREATE SCHEMA "+quoted)
	t.Cleanup(func() { admin(t, base, "DROP SCHEMA "+quoted+" CASCADE") })
	return schemaURL(t, base, schema)
}

// admin runs one statement on a connection of its own.
func admin(t testing.TB, base, sql string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", DatabaseURLEnv, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// poolParams make a test's pool give idle connections back within a
// second or two: suites open a store per case (a property test, one per
// run), and pools that kept theirs until the test ends would exhaust the
// server's max_connections.
var poolParams = [][2]string{
	{"pool_max_conns", "4"},
	{"pool_max_conn_idle_time", "1s"},
	{"pool_health_check_period", "1s"},
}

// schemaURL returns base with search_path set to schema and poolParams
// added, for a URL or a key=value connection string.
func schemaURL(t testing.TB, base, schema string) string {
	t.Helper()
	params := append([][2]string{{"search_path", schema}}, poolParams...)
	if !strings.Contains(base, "://") {
		for _, p := range params {
			base += " " + p[0] + "=" + p[1]
		}
		return base
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", DatabaseURLEnv, err)
	}
	q := u.Query()
	for _, p := range params {
		q.Set(p[0], p[1])
	}
	u.RawQuery = q.Encode()
	return u.String()
}
