package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/csvimport"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store/storeurl"
)

// TestReconcileCommand: stockd reconcile finds a drift planted behind the
// engine's back, prints it, exits 2, and leaves the books as they were.
func TestReconcileCommand(t *testing.T) {
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "stockd.db")
	s, err := storeurl.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	h := flowtest.NewHarness(t, s)
	h.SKU("tee-M")
	h.Receive("tee-M", "default", 10)
	tx, err := s.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	k := stockd.PositionKey{SKU: "tee-M", Location: "default", Pool: stockd.PoolDefault}
	if err := tx.Write(t.Context(), &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: k, Counters: stockd.Counters{OnHand: 13}}}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(t.Context()); err != nil {
		t.Fatal(err)
	}
	h.Engine.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	rc := ReconcileConfig{}
	var out bytes.Buffer
	err = runReconcile(context.Background(), dbURL, rc, stockd.PassMinute, false, &out)
	if !errors.Is(err, errDifferences) || exitCode(err) != exitDifferences {
		t.Fatalf("reconcile: %v (exit %d), want differences and exit 2\n%s", err, exitCode(err), out.String())
	}
	for _, want := range []string{"minute pass: runs [1], checked 1, findings 2, opened 2, closed 0", "ledger_sum tee-M/default/normal", "ledger_last tee-M/default/normal"} {
		if !strings.Contains(out.String(), want) {
			t.Fatalf("reconcile printed %q, want %q", out.String(), want)
		}
	}
	out.Reset()
	if err := runReconcile(context.Background(), dbURL, rc, stockd.PassMinute, false, &out); err != nil {
		t.Fatalf("second minute pass: %v (nothing changed since)\n%s", err, out.String())
	}
	out.Reset()
	err = runReconcile(context.Background(), dbURL, rc, stockd.PassDay, true, &out)
	if !errors.Is(err, errDifferences) || !strings.Contains(out.String(), `"kind": "ledger_sum"`) {
		t.Fatalf("day pass: %v\n%s", err, out.String())
	}
	if err := runReconcile(context.Background(), dbURL, rc, "week", false, io.Discard); !errors.Is(err, reconcile.ErrUnknownPass) {
		t.Fatalf("an unknown pass: %v", err)
	}
	// ledger rebuild --dry-run prints what it would change, and changes it
	// not.
	var rebuild bytes.Buffer
	for range 2 {
		rebuild.Reset()
		if err := runLedgerRebuild(context.Background(), dbURL, &rebuild); !errors.Is(err, errDifferences) ||
			!strings.Contains(rebuild.String(), "tee-M/default/normal: books {OnHand:13") || !strings.Contains(rebuild.String(), "change {OnHand:-3") {
			t.Fatalf("ledger rebuild --dry-run: %v\n%s", err, rebuild.String())
		}
	}
	root := newRootCommand()
	root.SetArgs([]string{"ledger", "rebuild", "--database-url", dbURL})
	root.SetOut(io.Discard)
	if err := root.Execute(); !errors.Is(err, errRebuildWrites) {
		t.Fatalf("ledger rebuild without --dry-run: %v, want refused", err)
	}
	// Nothing was fixed.
	var verify bytes.Buffer
	if err := runVerify(context.Background(), dbURL, false, &verify); !errors.Is(err, errDifferences) {
		t.Fatalf("verify after reconcile: %v, want the drift still there\n%s", err, verify.String())
	}
}

// TestServeSchedulesPasses: serve runs the minute pass on its schedule and
// exposes its metrics.
func TestServeSchedulesPasses(t *testing.T) {
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "stockd.db")
	m := &Main{
		Config: Config{DatabaseURL: dbURL, Addr: "127.0.0.1:0", ExpiryInterval: time.Second, LogFormat: "text", LogLevel: "info",
			Reconcile: ReconcileConfig{Schedule: reconcile.Schedule{Minute: reconcile.MinuteIntervalMin}}},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("run: %v", err)
	}
	defer m.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + m.Addr() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(body), `stockd_reconcile_runs_total{pass="minute"} `) &&
			!strings.Contains(string(body), `stockd_reconcile_runs_total{pass="minute"} 0`) {
			if !strings.Contains(string(body), `stockd_discrepancies_open{kind="ledger_sum"} 0`) {
				t.Fatalf("metrics lack the open discrepancy gauge:\n%s", body)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no minute pass ran within 10 s of serve starting")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestReconcileFlagsBounded(t *testing.T) {
	for _, args := range [][]string{
		{"--reconcile-minute-interval=1ms"},
		{"--reconcile-hour-interval=1000h"},
		{"--reconcile-day-interval=1m"},
	} {
		cmd := newServeCommand()
		if err := cmd.Flags().Parse(args); err != nil {
			t.Fatal(err)
		}
		var cfg ReconcileConfig
		cfg.Schedule.Minute, _ = cmd.Flags().GetDuration("reconcile-minute-interval")
		cfg.Schedule.Hour, _ = cmd.Flags().GetDuration("reconcile-hour-interval")
		cfg.Schedule.Day, _ = cmd.Flags().GetDuration("reconcile-day-interval")
		if err := cfg.validate(); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// TestImportCounts: a count file is checked whole before anything of it
// is compared: bad rows are named by line and nothing is recorded; a good
// file is compared as of each row's time.
func TestImportCounts(t *testing.T) {
	dir := t.TempDir()
	dbURL := "sqlite://" + filepath.Join(dir, "stockd.db")
	s, err := storeurl.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	h := flowtest.NewHarness(t, s)
	h.Clock.Set(time.Now().Add(-time.Hour).UTC())
	h.SKU("tee-M")
	h.Receive("tee-M", "default", 10)
	before := h.Clock.Now().Add(time.Minute).Format(time.RFC3339Nano)
	h.Clock.Advance(2 * time.Minute)
	h.MustDo(stockd.Command{Op: &stockd.Adjust{Position: stockd.PositionKey{SKU: "tee-M"}, Reason: stockd.ReasonDamage, Delta: -2}})
	h.Engine.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	var out bytes.Buffer
	bad := write("bad.csv", "sku,location,counted_on_hand,counted_at\n"+
		"tee-M,default,10,"+before+"\n"+
		"tee-M,default,ten,"+before+"\n"+
		"nope,default,1,"+before+"\n"+
		"tee-M,default,1,yesterday\n"+
		"tee-M,default\n")
	_, err = runStockd(t, "import", "counts", "--database-url", dbURL, bad)
	if _, ok := errors.AsType[*csvimport.BadFileError](err); !ok {
		t.Fatalf("a bad file: %v, want refused", err)
	}
	for _, want := range []string{"line 3: counted_on_hand", "line 4: sku \"nope\" is unknown", "line 5: counted_at", "line 6: wrong number of fields"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	for _, header := range []string{"sku,location,counted_at,counted_on_hand\n", "SKU,location,counted_on_hand,counted_at\n", ""} {
		if _, err := runStockd(t, "import", "counts", "--database-url", dbURL, write("header.csv", header+"tee-M,default,1,"+before+"\n")); err == nil {
			t.Errorf("header %q accepted", header)
		}
	}
	// Nothing of the bad files was recorded.
	out.Reset()
	if err := runReconcile(t.Context(), dbURL, ReconcileConfig{}, stockd.PassDay, false, &out); err != nil {
		t.Fatalf("day pass: %v\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), "runs [1]") {
		t.Fatalf("the bad files recorded runs: %s", out.String())
	}
	good := write("good.csv", "sku,location,counted_on_hand,counted_at\ntee-M,default,10,"+before+"\ntee-M,,7,"+time.Now().UTC().Format(time.RFC3339)+"\n")
	got, err := runStockd(t, "import", "counts", "--database-url", dbURL, good)
	if !errors.Is(err, errDifferences) || !strings.Contains(got, "count pass: runs [2], checked 2, findings 1, opened 1") ||
		!strings.Contains(got, "count_mismatch tee-M/default/normal: expected {OnHand:8") {
		t.Fatalf("good file: %v\n%s", err, got)
	}
}

// TestReadmeDiscrepancy runs the README's "A discrepancy found and
// resolved" block against a fresh server, as TestReadmeWalkthrough does.
func TestReadmeDiscrepancy(t *testing.T) {
	_, out := runReadmeBlock(t, "## A discrepancy found and resolved")
	for _, want := range []string{`{"kind":"count_mismatch","expected":12,"actual":11}`, "\n12\n", `{"on_hand":11}`, `{"findings":0,"closed":1}`, "\nclosed\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("the block's output lacks %q:\n%s", want, out)
		}
	}
}

// TestReadmeImports runs the README's "Imports over HTTP" block against a
// fresh server, as TestReadmeDiscrepancy does.
func TestReadmeImports(t *testing.T) {
	script, out := runReadmeBlock(t, "## Imports over HTTP")
	var want []string
	for _, line := range strings.Split(script, "\n") {
		if expected, ok := strings.CutPrefix(line, "# → "); ok {
			want = append(want, expected)
		}
	}
	if got := strings.Split(strings.TrimSpace(out), "\n"); !slices.Equal(got, want) {
		t.Errorf("the block printed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
