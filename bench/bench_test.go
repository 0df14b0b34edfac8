package bench

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/store/storeurl"
)

// Environment variables that point the smoke test at real servers.
const (
	testPostgresURLEnv = "STOCKD_TEST_POSTGRES_URL"
	testRedisURLEnv    = "STOCKD_TEST_REDIS_URL"
)

// smokeConfig is a run small enough for a unit test: hot for 300 ms, and a
// flash sale of 50 units among 200 contenders.
func smokeConfig(databaseURL string, baselines []string) Config {
	return Config{
		DatabaseURL:     databaseURL,
		Scenarios:       []string{ScenarioHot, ScenarioFlash},
		Baselines:       baselines,
		Concurrency:     []int{16, 64},
		Duration:        300 * time.Millisecond,
		Warmup:          100 * time.Millisecond,
		FlashStock:      50,
		FlashContenders: 200,
	}
}

func TestSmokeSQLite(t *testing.T) {
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "bench.db")
	rep := runSmoke(t, smokeConfig(dbURL, []string{BaselineNaiveUpdate, BaselineSelectForUpdate}))
	if len(rep.Rows) != 2*2*3 {
		t.Fatalf("%d rows, want 12", len(rep.Rows))
	}
}

func TestSmokePostgres(t *testing.T) {
	base := os.Getenv(testPostgresURLEnv)
	if base == "" {
		t.Skipf("PostgreSQL smoke test skipped: set %s (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)", testPostgresURLEnv)
	}
	runSmoke(t, smokeConfig(testSchemaURL(t, base), []string{BaselineNaiveUpdate, BaselineSelectForUpdate}))
}

func TestSmokeRedis(t *testing.T) {
	redisURL := os.Getenv(testRedisURLEnv)
	if redisURL == "" {
		t.Skipf("Redis smoke test skipped: set %s (e.g. redis://127.0.0.1:6379/0)", testRedisURLEnv)
	}
	cfg := smokeConfig("sqlite://"+filepath.Join(t.TempDir(), "bench.db"), []string{BaselineRedisLua})
	cfg.RedisURL = redisURL
	rep := runSmoke(t, cfg)
	for _, row := range rep.Rows {
		if row.Skipped != "" {
			t.Errorf("%s %s: %s", row.Scenario, row.Implementation, row.Skipped)
		}
	}
}

func TestRedisUnreachableIsSkipped(t *testing.T) {
	cfg := smokeConfig("sqlite://"+filepath.Join(t.TempDir(), "bench.db"), []string{BaselineRedisLua})
	cfg.Scenarios, cfg.Concurrency = []string{ScenarioHot}, []int{4}
	cfg.RedisURL = "redis://127.0.0.1:1/0" // nothing listens on port 1
	rep := runSmoke(t, cfg)
	if got := rep.Rows[1].Skipped; !strings.HasPrefix(got, "skipped: ") {
		t.Errorf("redis-lua row skipped = %q, want a reason", got)
	}
}

// runSmoke runs cfg and checks what every run must hold: no row oversold,
// books that match the answers, verify clean, exact flash winners, and
// ratios for stockd rows.
func runSmoke(t *testing.T, cfg Config) Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rep, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
	for _, row := range rep.Rows {
		if strings.HasPrefix(row.Skipped, "skipped") {
			continue
		}
		name := row.Scenario + " " + row.Implementation
		if row.Skipped != "" || row.Errors != 0 {
			t.Errorf("%s: %s; %d errors, first %q", name, row.Skipped, row.Errors, row.FirstError)
		}
		if row.Oversold != 0 || !row.CheckClean {
			t.Errorf("%s: oversold %d, check %q", name, row.Oversold, row.Check)
		}
		if !row.Baseline && !row.VerifyClean {
			t.Errorf("%s: verify %q", name, row.Verify)
		}
		switch row.Scenario {
		case ScenarioFlash:
			if row.Successes != cfg.FlashStock || row.Requests != int64(cfg.FlashContenders) {
				t.Errorf("%s: %d winners of %d answered, want %d of %d", name, row.Successes, row.Requests, cfg.FlashStock, cfg.FlashContenders)
			}
		case ScenarioHot:
			if row.Successes == 0 || row.Rejections != 0 || row.LatencySamples == 0 || row.LatencyP99Ms < row.LatencyP50Ms {
				t.Errorf("%s: %d successes, %d rejections, %d samples, p50 %v p99 %v", name,
					row.Successes, row.Rejections, row.LatencySamples, row.LatencyP50Ms, row.LatencyP99Ms)
			}
		}
		if !row.Baseline && len(rep.Baselines) > 0 && len(row.Ratios) == 0 && !anySkipped(rep) {
			t.Errorf("%s: no ratios", name)
		}
	}
	if _, err := json.Marshal(rep); err != nil {
		t.Errorf("report does not encode: %v", err)
	}
	return rep
}

func anySkipped(rep Report) bool {
	for _, row := range rep.Rows {
		if row.Skipped != "" {
			return true
		}
	}
	return false
}

// testSchemaURL creates a schema with a random name, dropped when t ends,
// and returns base with search_path selecting it.
func testSchemaURL(t *testing.T, base string) string {
	t.Helper()
	random := make([]byte, 6)
	if _, err := rand.Read(random); err != nil {
		t.Fatal(err)
	}
	schema := "bench_test_" + hex.EncodeToString(random)
	exec := func(sql string) {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Fatalf("connect to %s: %v", testPostgresURLEnv, err)
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	quoted := pgx.Identifier{schema}.Sanitize()
	exec("CREATE SCHEMA " + quoted)
	t.Cleanup(func() { exec("DROP SCHEMA " + quoted + " CASCADE") })
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("parse %s: %v", testPostgresURLEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestSmokeHTTPGate runs stockd-http and stockd-gate over HTTP against a
// server with a gate, its URL given twice (as two replicas would be), and
// checks that the gate's row persisted every win and reports its drain.
func TestSmokeHTTPGate(t *testing.T) {
	redisURL := os.Getenv(testRedisURLEnv)
	if redisURL == "" {
		t.Skipf("HTTP gate smoke test skipped: set %s", testRedisURLEnv)
	}
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "stockd.db")
	ctx := context.Background()
	st, err := storeurl.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if err := st.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	eng := engine.New(engine.Config{Store: st})
	t.Cleanup(eng.Close)
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	prefix := "stockd-bench-test:" + randomHex(t) + ":"
	t.Cleanup(func() {
		iter := rdb.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		for iter.Next(ctx) {
			_ = rdb.Del(ctx, iter.Val()).Err()
		}
	})
	g := gate.New(gate.Config{Client: rdb, Store: st, Engine: eng, Prefix: prefix, Logger: slog.New(slog.DiscardHandler)})
	run, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = g.Persister(run) }()
	t.Cleanup(func() { stop(); <-done })
	srv := httptest.NewServer(httpapi.NewServer(httpapi.Config{Engine: eng, Store: st, Gate: g, Logger: slog.New(slog.DiscardHandler)}))
	t.Cleanup(srv.Close)

	cfg := smokeConfig(dbURL, []string{BaselineGate})
	cfg.Target, cfg.URL, cfg.SkipVerify = TargetHTTP, srv.URL+","+srv.URL, true
	cfg.Concurrency = []int{16}
	ctxRun, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	rep, err := Run(ctxRun, cfg)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", table.String())
	gateRows := 0
	for _, row := range rep.Rows {
		name := row.Scenario + " " + row.Implementation
		if row.Skipped != "" || row.Errors != 0 || row.Oversold != 0 || !row.CheckClean {
			t.Errorf("%s: %s; %d errors (%q), oversold %d, check %q", name, row.Skipped, row.Errors, row.FirstError, row.Oversold, row.Check)
		}
		if row.Implementation == BaselineGate {
			gateRows++
			if row.Successes == 0 {
				t.Errorf("%s: no win", name)
			}
		}
	}
	if gateRows != 2 {
		t.Fatalf("%d stockd-gate rows, want 2 (hot, flash)", gateRows)
	}
}

func randomHex(t *testing.T) string {
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}
