package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/internal/faultproxy"
	"github.com/stockd/stockd/store/postgres/pgtest"
)

// drillRequestTimeout is the server's deadline in the drills: short, so
// that a drill takes seconds.
const drillRequestTimeout = time.Second

// drillSlack is what an answer may take beyond the deadline: writing it,
// and pgx closing a connection that stopped answering.
const drillSlack = 1500 * time.Millisecond

// syncBuffer is a log destination several goroutines write to.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// drillServer is a running serve wiring and a client for it.
type drillServer struct {
	t    *testing.T
	m    *Main
	base string
	log  *syncBuffer
	// closeLog flushes the capped logger's counts.
	closeLog func()
}

func startDrillServer(t *testing.T, databaseURL string) *drillServer {
	t.Helper()
	log := &syncBuffer{}
	cfg := Config{DatabaseURL: databaseURL, Addr: "127.0.0.1:0", ExpiryInterval: time.Second,
		LogFormat: "json", LogLevel: "info", RequestTimeout: drillRequestTimeout, ShutdownTimeout: 5 * time.Second}
	logger, closeLog := capped(slog.New(slog.NewJSONHandler(log, nil)))
	m := &Main{Config: cfg, Logger: logger}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	t.Cleanup(func() { m.Close(); closeLog() })
	return &drillServer{t: t, m: m, base: "http://" + m.Addr(), log: log, closeLog: closeLog}
}

// drillAnswer is one answer and how long it took.
type drillAnswer struct {
	status     int
	retryAfter string
	body       string
	took       time.Duration
	err        error
}

func (d *drillServer) do(method, path, key, body string) drillAnswer {
	req, err := http.NewRequest(method, d.base+path, strings.NewReader(body))
	if err != nil {
		d.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return drillAnswer{err: err, took: time.Since(start)}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return drillAnswer{status: resp.StatusCode, retryAfter: resp.Header.Get("Retry-After"), body: string(raw), took: time.Since(start), err: err}
}

func (d *drillServer) must(method, path, key, body string, status int) drillAnswer {
	d.t.Helper()
	a := d.do(method, path, key, body)
	if a.err != nil || a.status != status {
		d.t.Fatalf("%s %s: %d %s %v, want %d", method, path, a.status, a.body, a.err, status)
	}
	return a
}

// code is the problem code of an answer, or "".
func (a drillAnswer) code() string {
	var p struct{ Code, Reason string }
	if json.Unmarshal([]byte(a.body), &p) != nil {
		return ""
	}
	if p.Reason != "" {
		return p.Reason
	}
	return p.Code
}

// outageRequests are what callers keep sending while the database is
// gone: mutations, reads, the status-by-key lookup.
func outageRequests(i int) (method, path, key, body string) {
	switch i % 4 {
	case 0:
		return "POST", "/v1/reservations", fmt.Sprintf("outage-%d", i), `{"lines":[{"sku":"drill","quantity":1}]}`
	case 1:
		return "GET", "/v1/stock/drill", "", ""
	case 2:
		return "GET", "/v1/reservations?key=before", "", ""
	}
	return "POST", "/v1/receipts", fmt.Sprintf("outage-receipt-%d", i), `{"sku":"drill","quantity":1}`
}

// requireOutageAnswers sends requests for a while and checks that each is
// answered within the deadline, as 503 with Retry-After and one of codes,
// naming no socket address.
func (d *drillServer) requireOutageAnswers(rounds int, hidden []string, codes ...string) {
	d.t.Helper()
	var wg sync.WaitGroup
	answers := make([]drillAnswer, rounds*8)
	for i := range answers {
		wg.Go(func() {
			method, path, key, body := outageRequests(i)
			answers[i] = d.do(method, path, key, body)
		})
		if i%8 == 7 {
			time.Sleep(100 * time.Millisecond)
		}
	}
	wg.Wait()
	for i, a := range answers {
		method, path, _, _ := outageRequests(i)
		switch {
		case a.err != nil:
			d.t.Errorf("%s %s during the outage: %v (an empty reply, not a 503)", method, path, a.err)
		case a.status != http.StatusServiceUnavailable || a.retryAfter == "" || !contains(codes, a.code()):
			d.t.Errorf("%s %s during the outage: %d Retry-After %q %s, want 503 with Retry-After and one of %v", method, path, a.status, a.retryAfter, a.body, codes)
		case a.took > drillRequestTimeout+drillSlack:
			d.t.Errorf("%s %s during the outage took %v, past the deadline of %v", method, path, a.took, drillRequestTimeout)
		}
		for _, h := range hidden {
			if strings.Contains(a.body, h) {
				d.t.Errorf("%s %s: the answer names %q: %s", method, path, h, a.body)
			}
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// requireRecovered checks that writes work again within seconds, that
// health follows at once, that reads work, and that the books verify.
func (d *drillServer) requireRecovered() {
	d.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		a := d.do("POST", "/v1/reservations", "after", `{"lines":[{"sku":"drill","quantity":1}]}`)
		if a.status == http.StatusCreated {
			break
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("writes did not recover within 15 s: %d %s %v", a.status, a.body, a.err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	d.must("GET", "/healthz", "", "", http.StatusOK)
	d.must("GET", "/v1/reservations?key=before", "", "", http.StatusOK)
	// Each request the outage answered with 503 is either applied once or
	// not at all; a retry with its key learns which, and verify finds the
	// books consistent whatever the split.
	d.must("POST", "/v1/reservations", "outage-0", `{"lines":[{"sku":"drill","quantity":1}]}`, http.StatusCreated)
	report, err := audit.Verify(context.Background(), d.m.store)
	if err != nil {
		d.t.Fatal(err)
	}
	if len(report.Differences) > 0 {
		d.t.Fatalf("verify after the outage: %v", report.Differences)
	}
}

// errorLines counts the ERROR records in the log.
func (d *drillServer) errorLines() int {
	d.closeLog()
	return strings.Count(d.log.String(), `"level":"ERROR"`)
}

// TestDrillDatabaseStall puts a proxy between stockd and PostgreSQL and
// stalls it: the database silently stops answering. Before request
// deadlines, reads and key lookups waited 45 s, past the write timeout, and
// clients got an empty reply. Now every request is answered 503 with
// Retry-After within the deadline, health says so, and everything works
// again when the database does.
func TestDrillDatabaseStall(t *testing.T) {
	databaseURL := pgtest.NewDatabaseURL(t)
	u, err := url.Parse(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { proxy.Close() })
	u.Host = proxy.Addr()
	d := startDrillServer(t, u.String())
	d.must("POST", "/v1/skus", "sku", `{"sku":"drill"}`, http.StatusCreated)
	d.must("POST", "/v1/receipts", "receipt", `{"sku":"drill","quantity":1000}`, http.StatusOK)
	d.must("POST", "/v1/reservations", "before", `{"lines":[{"sku":"drill","quantity":1}]}`, http.StatusCreated)

	proxy.Stall()
	health := d.do("GET", "/healthz", "", "")
	if health.status != http.StatusServiceUnavailable || health.took > 2*time.Second+drillSlack {
		t.Errorf("healthz during the stall: %d %s after %v, want 503 within the probe's 2 s", health.status, health.body, health.took)
	}
	d.requireOutageAnswers(10, []string{proxy.Addr(), u.Hostname() + ":", "SQLSTATE"}, "timeout", "database_unavailable")
	proxy.Resume()
	d.requireRecovered()
	if n := d.errorLines(); n > 40 {
		t.Errorf("%d ERROR lines for a stall of a few seconds, want repeated errors capped", n)
	}
}

// TestDrillSQLiteWriteLocked holds SQLite's write lock from another
// connection, as another process (a backup done wrong, a stuck script)
// would: mutations are answered 503 within the deadline instead of waiting
// out the busy timeout, reads go on, health says writes fail, and all is
// well once the lock is released.
func TestDrillSQLiteWriteLocked(t *testing.T) {
	path := t.TempDir() + "/stockd.db"
	d := startDrillServer(t, "sqlite://"+path)
	d.must("POST", "/v1/skus", "sku", `{"sku":"drill"}`, http.StatusCreated)
	d.must("POST", "/v1/receipts", "receipt", `{"sku":"drill","quantity":1000}`, http.StatusOK)
	d.must("POST", "/v1/reservations", "before", `{"lines":[{"sku":"drill","quantity":1}]}`, http.StatusCreated)

	locker, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(0)")
	if err != nil {
		t.Fatal(err)
	}
	defer locker.Close()
	conn, err := locker.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(context.Background(), "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	health := d.do("GET", "/healthz", "", "")
	if health.status != http.StatusServiceUnavailable || health.code() != "writes_failing" {
		t.Errorf("healthz with the write lock held: %d %s, want 503 writes_failing", health.status, health.body)
	}
	for i := range 6 {
		method, path, key, body := outageRequests(i * 3) // mutations (0, 3) and reads (1, 2) alike
		a := d.do(method, path, key, body)
		read := method == "GET"
		switch {
		case read && a.status != http.StatusOK:
			t.Errorf("%s %s with the write lock held: %d %s, want reads to go on", method, path, a.status, a.body)
		case !read && (a.status != http.StatusServiceUnavailable || a.code() != "timeout" || a.retryAfter == ""):
			t.Errorf("%s %s with the write lock held: %d %s, want 503 timeout with Retry-After", method, path, a.status, a.body)
		case a.took > drillRequestTimeout+drillSlack:
			t.Errorf("%s %s took %v, past the deadline", method, path, a.took)
		}
	}
	if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	d.requireRecovered()
}

// TestDrillSQLiteDiskFull runs SQLite on a small tmpfs and fills it. Before,
// /healthz said ok while every write failed; now writes answer 503
// database_unavailable, health degrades with the reason, and both recover
// once space is freed. It needs the right to mount (root), and skips
// without it.
func TestDrillSQLiteDiskFull(t *testing.T) {
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("full-disk drill skipped: cannot mount a tmpfs here (%v: %s)", err, bytes.TrimSpace(out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	d := startDrillServer(t, "sqlite://"+dir+"/stockd.db")
	d.must("POST", "/v1/skus", "sku", `{"sku":"drill"}`, http.StatusCreated)
	d.must("POST", "/v1/receipts", "receipt", `{"sku":"drill","quantity":1000}`, http.StatusOK)
	d.must("POST", "/v1/reservations", "before", `{"lines":[{"sku":"drill","quantity":1}]}`, http.StatusCreated)

	filler := dir + "/filler"
	fillDisk(t, filler)
	var refused drillAnswer
	for i := 0; i < 5000 && refused.status == 0; i++ {
		a := d.do("POST", "/v1/receipts", fmt.Sprintf("full-%d", i), `{"sku":"drill","quantity":1,"reference":"`+strings.Repeat("r", 200)+`"}`)
		switch {
		case a.err != nil:
			t.Fatalf("receipt on a full disk: %v", a.err)
		case a.status == http.StatusOK:
		default:
			refused = a
		}
	}
	if refused.status != http.StatusServiceUnavailable || refused.code() != "database_unavailable" || refused.retryAfter == "" {
		t.Fatalf("receipt on a full disk: %d %s, want 503 database_unavailable with Retry-After", refused.status, refused.body)
	}
	health := d.do("GET", "/healthz", "", "")
	if health.status != http.StatusServiceUnavailable || !contains([]string{"writes_failing", "batches_failing"}, health.code()) {
		t.Errorf("healthz on a full disk: %d %s, want 503 with writes or batches failing", health.status, health.body)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	d.requireRecovered()
}

// fillDisk writes path until the file system is full.
func fillDisk(t *testing.T, path string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if errors.Is(err, syscall.ENOSPC) {
				return
			}
			t.Fatal(err)
		}
	}
}
