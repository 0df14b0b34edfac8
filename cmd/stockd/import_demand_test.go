package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// seedHistory is seed 003 §4.2's 30 days: mean 14.5, σ 3.603.
var seedHistory = []int64{12, 15, 9, 20, 18, 11, 14, 16, 13, 17, 21, 11, 13, 8, 19, 14, 16, 14, 17, 14, 9, 10, 16, 8, 18, 14, 18, 13, 17, 20}

// TestImportDemandThenReplenish imports the seed's history from a CSV
// file and prints the seed's figures, as a table and as CSV; a file with
// bad rows names each with its line and writes nothing.
func TestImportDemandThenReplenish(t *testing.T) {
	dir := t.TempDir()
	dbURL := "sqlite://" + filepath.Join(dir, "stockd.db")
	ctx := context.Background()
	s, err := storeurl.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	h := flowtest.NewHarness(t, s)
	h.SKU("tea")
	h.SKU("cup")
	h.Receive("tea", "default", 60)
	lead, multiple := 7.0, int64(50)
	h.MustDo(stockd.Command{Op: &stockd.SKUUpdate{ID: "tea", Replenishment: stockd.ReplenishmentSettings{LeadTimeDays: &lead, OrderMultiple: &multiple}}})

	var good strings.Builder
	good.WriteString("sku,date,quantity\n")
	for i, q := range seedHistory {
		fmt.Fprintf(&good, "tea,2026-01-%02d,%d\n", i+1, q)
	}
	goodPath := writeFile(t, "good.csv", good.String())
	badPath := writeFile(t, "bad.csv", "sku,date,quantity\ncup,2025-01-01,3\ncup,2025-02-30,1\ncup,2025-01-02,-4\nnowhere,2025-01-02,1\ncup,2025-01-01,5\ncup,2025-01-04,x\n")
	headerPath := writeFile(t, "header.csv", "sku,day,quantity\ncup,2025-01-01,3\n")

	out, err := runStockd(t, "import", "demand", badPath, "--database-url", dbURL)
	if err == nil {
		t.Fatalf("a bad file was accepted: %s", out)
	}
	for _, want := range []string{"5 bad rows, nothing written", "line 3: date", "line 4: quantity", "line 5: sku \"nowhere\" is unknown", "line 6: cup on 2025-01-01 again (first on line 2)", "line 7: quantity \"x\""} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("bad file error lacks %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "line 2:") {
		t.Errorf("a good row reported:\n%v", err)
	}
	badFields := writeFile(t, "fields.csv", "sku,date,quantity\ncup,2025-01-03\n")
	if _, err := runStockd(t, "import", "demand", badFields, "--database-url", dbURL); err == nil || !strings.Contains(err.Error(), "line 2: wrong number of fields") {
		t.Errorf("a short row: %v", err)
	}
	if _, err := runStockd(t, "import", "demand", headerPath, "--database-url", dbURL); err == nil || !strings.Contains(err.Error(), "line 1: header must be exactly sku,date,quantity") {
		t.Errorf("a wrong header: %v", err)
	}
	if days, err := s.DemandHistoryList(ctx, store.DemandHistoryListParams{SKU: "cup", From: "2025-01-01", To: "2025-12-31"}); err != nil || len(days) != 0 {
		t.Fatalf("a bad file wrote %v, %v", days, err)
	}

	for range 2 { // idempotent
		out, err = runStockd(t, "import", "demand", goodPath, "--database-url", dbURL)
		if err != nil || !strings.Contains(out, "imported 30 demand rows") || !strings.Contains(out, "importing demand: 30 of 30 rows (100%)") {
			t.Fatalf("import: %v\n%s", err, out)
		}
	}

	out, err = runStockd(t, "replenish", "--as-of", "2026-01-30", "--sku", "tea", "--csv", "--database-url", dbURL)
	if err != nil {
		t.Fatalf("replenish: %v\n%s", err, out)
	}
	want := "sku,level,source,mean_daily,stddev_daily,lead_time_days,lead_time_stddev_days,safety_stock,reorder_point,available,in_transit,incoming,inventory_position,days_of_cover,suggested_quantity\n" +
		"tea,critical,history,14.50,3.60,7.00,0.00,16,118,60,0,0,60,4.1,400\n"
	if out != want {
		t.Fatalf("replenish --csv:\n%s\nwant\n%s", out, want)
	}
	out, err = runStockd(t, "replenish", "--as-of", "2026-01-30", "--status", "critical", "--database-url", dbURL)
	if err != nil || !strings.Contains(out, "SS") || !strings.Contains(out, "118") || strings.Contains(out, "cup") {
		t.Fatalf("replenish table: %v\n%s", err, out)
	}
	for _, args := range [][]string{
		{"--business-time-zone", "Mars/Olympus"},
		{"--business-time-zone", "Local"},
		{"--as-of", "2026-02-30"},
		{"--status", "red"},
	} {
		if out, err := runStockd(t, append([]string{"replenish", "--database-url", dbURL}, args...)...); err == nil {
			t.Errorf("replenish %v accepted:\n%s", args, out)
		}
	}
	if out, err := runStockd(t, "replenish", "--business-time-zone", "Asia/Shanghai", "--as-of", "2026-01-30", "--csv", "--database-url", dbURL); err != nil || !strings.Contains(out, "tea,critical,history,14.50") {
		t.Errorf("in Shanghai: %v\n%s", err, out)
	}
}
