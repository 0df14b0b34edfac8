package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stockd/stockd/replenish/backtest"
)

func runStockd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCommand()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	records, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return records
}

// TestReplenishGenTraceThenBacktest runs both commands end to end in a
// temporary directory, as the benchmark's command line does.
func TestReplenishGenTraceThenBacktest(t *testing.T) {
	dir := t.TempDir()
	traceDir, outDir := filepath.Join(dir, "trace"), filepath.Join(dir, "out")
	if out, err := runStockd(t, "replenish", "gen-trace", "--skus", "40", "--days", "120", "--seed", "3", "--out", traceDir); err != nil {
		t.Fatalf("gen-trace: %v\n%s", err, out)
	}
	out, err := runStockd(t, "replenish", "backtest", "--demand", filepath.Join(traceDir, "demand.csv"),
		"--skus", filepath.Join(traceDir, "skus.csv"), "--seed", "2", "--out", outDir)
	if err != nil {
		t.Fatalf("backtest: %v\n%s", err, out)
	}
	for _, want := range []string{"40 SKUs, 120 days from 2026-01-01", "replenish (cover_above_alert, trend_poisson_gamma)", "fixed<10", "stockout-days"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for file, header := range map[string]string{
		backtest.OrdersFile:             "sku,order_date,quantity,arrival_date",
		backtest.NotificationsFile:      "sku,date,level,kind",
		backtest.FixedOrdersFile:        "sku,order_date,quantity,arrival_date",
		backtest.FixedNotificationsFile: "sku,date,level,kind",
	} {
		records := readCSV(t, filepath.Join(outDir, file))
		if strings.Join(records[0], ",") != header || len(records) < 2 {
			t.Errorf("%s: header %v and %d rows", file, records[0], len(records)-1)
		}
	}
	summary, err := os.ReadFile(filepath.Join(outDir, backtest.SummaryFile))
	if err != nil || !strings.Contains(string(summary), "stockout-days") {
		t.Errorf("summary: %v\n%s", err, summary)
	}
}

func TestReplenishBacktestRefusesABadFile(t *testing.T) {
	dir := t.TempDir()
	skus := filepath.Join(dir, "skus.csv")
	demand := filepath.Join(dir, "demand.csv")
	if err := os.WriteFile(skus, []byte(backtest.SKUsHeader+"\nA,7,0,2,30,1,0,0,x,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(demand, []byte(backtest.DemandHeader+"\nA,2026-01-01,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runStockd(t, "replenish", "backtest", "--demand", demand, "--skus", skus, "--out", filepath.Join(dir, "out"))
	if err == nil || !strings.Contains(err.Error(), "skus.csv line 2: service_level") {
		t.Errorf("got %v\n%s", err, out)
	}
	if _, statErr := os.Stat(filepath.Join(dir, "out")); !os.IsNotExist(statErr) {
		t.Error("a bad file still wrote output")
	}
	if err := os.WriteFile(skus, []byte(backtest.SKUsHeader+"\nA,7,0,0.95,30,1,0,0,x,5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = runStockd(t, "replenish", "backtest", "--demand", demand, "--skus", skus, "--out", filepath.Join(dir, "out"), "--review-days", "0")
	if err == nil || !strings.Contains(err.Error(), "review_days") {
		t.Errorf("review days 0: got %v\n%s", err, out)
	}
}
