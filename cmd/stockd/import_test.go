package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd/store/postgres/pgtest"
)

// testDatabases are the backends the command line's tests run on: a
// fresh SQLite file, and a fresh PostgreSQL schema (skipped without
// STOCKD_TEST_POSTGRES_URL).
var testDatabases = []struct {
	name string
	url  func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return "sqlite://" + filepath.Join(t.TempDir(), "stockd.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.NewDatabaseURL(t) }},
}

// eachDatabase runs fn with a fresh database URL of each backend.
func eachDatabase(t *testing.T, fn func(t *testing.T, dbURL string)) {
	for _, db := range testDatabases {
		t.Run(db.name, func(t *testing.T) { fn(t, db.url(t)) })
	}
}

func writeFile(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImportExport moves a shop in from the system it replaces: its SKUs,
// its opening balances and the holds and paid orders still open, then
// exports the books. Rerunning a file changes nothing; verify holds.
func TestImportExport(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db string) {
		runCommand(t, "migrate", "--database-url", db)
		skus := writeFile(t, "skus.csv", "sku,name,unit\ntee-M,T-shirt M,piece\nmug,Mug,piece\n")
		stock := writeFile(t, "stock.csv", "sku,location,pool,quantity,reference\ntee-M,,,50,PO-1\nmug,default,normal,30,\n")
		deadline := time.Now().Add(2 * time.Hour).UTC().Format(time.RFC3339)
		holds := writeFile(t, "holds.csv", "key,sku,location,pool,quantity,status,expires_at,customer_id\n"+
			"o-1,tee-M,,,2,pending,"+deadline+",c-1\n"+
			"o-1,mug,,,1,pending,"+deadline+",c-1\n"+
			"o-2,mug,,,3,confirmed,,\n")
		for _, c := range []struct{ kind, file, want string }{
			{"skus", skus, "imported 2 skus: 2 applied"},
			{"stock", stock, "imported 2 receipts: 2 applied"},
			{"reservations", holds, "imported 2 reservations: 2 applied"},
			{"stock", stock, "imported 2 receipts: 0 applied, 2 already there"},
			{"reservations", holds, "imported 2 reservations: 0 applied, 2 already there"},
		} {
			if out := runCommand(t, "import", c.kind, "--database-url", db, c.file); !strings.Contains(out, c.want) {
				t.Errorf("import %s: %q, want %q", c.kind, out, c.want)
			}
		}
		got := runCommand(t, "export", "stock", "--database-url", db)
		want := "sku,location,pool,on_hand,reserved,committed,quarantined,available,in_transit,incoming\n" +
			"mug,default,normal,30,1,3,0,26,0,0\n" +
			"tee-M,default,normal,50,2,0,0,48,0,0\n"
		if got != want {
			t.Errorf("export stock:\n%s\nwant:\n%s", got, want)
		}
		ledger := runCommand(t, "export", "ledger", "--database-url", db, "--sku", "mug")
		// header, receipt, its back-in-stock events (position and pool),
		// reserve, reserve, confirm
		if lines := strings.Count(ledger, "\n"); lines != 7 {
			t.Errorf("export ledger --sku mug: %d lines, want 7:\n%s", lines, ledger)
		}
		future := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
		if got := runCommand(t, "export", "ledger", "--database-url", db, "--from", future); strings.Count(got, "\n") != 1 {
			t.Errorf("export ledger from the future: %q, want the header alone", got)
		}
		if out := runCommand(t, "verify", "--database-url", db); !strings.Contains(out, "differences 0") {
			t.Errorf("verify after import: %s", out)
		}
	})
}

// TestImportRefusesABadFileWhole: every bad row is reported with its line,
// and none of the good rows beside them is written.
func TestImportRefusesABadFileWhole(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db string) {
		runCommand(t, "import", "skus", "--database-url", db, writeFile(t, "skus.csv", "sku,name,unit\nA,A,piece\n"))
		past := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
		for _, c := range []struct {
			kind, body string
			want       []string
		}{
			{"stock", "sku,quantity\nA,1\n", []string{"line 1: header must be exactly sku,location,pool,quantity,reference"}},
			{"stock", "sku,location,pool,quantity,reference\nA,,,1,\nB,,,1,\nA,,,0,\nA,nowhere,,1,\nA,,vip,1,\nA,,,x\n", []string{"line 7: wrong number of fields"}},
			{"stock", "sku,location,pool,quantity,reference\nA,,,1,\nB,,,1,\nA,,,0,\nA,nowhere,,1,\nA,,vip,1,\n", []string{
				"4 bad rows, nothing written", "line 3: sku B does not exist", "line 4: quantity \"0\"", "line 5: location nowhere does not exist", "line 6: pool vip does not exist"}},
			{"skus", "sku,name,unit\nC,C,piece\nC,C,piece\nA,Other,piece\nbad sku,x,piece\n", []string{
				"line 3: sku C again (first on line 2)", "line 4: sku A exists as \"A\" (piece), not \"Other\" (piece)", "line 5: sku: must be"}},
			{"reservations", "key,sku,location,pool,quantity,status,expires_at,customer_id\no-1,A,,,1,pending," + past + ",\no-2,A,,,1,shipped,,\no-3,A,,,1,confirmed,,\no-3,A,,,1,pending,,\n", []string{
				"line 2: expires_at " + past + ": a pending hold's deadline must lie", "line 3: status \"shipped\"", "line 5: key o-3: status, expires_at and customer_id must match its first row (line 4)"}},
		} {
			out, err := runStockd(t, "import", c.kind, "--database-url", db, writeFile(t, c.kind+".csv", c.body))
			if err == nil {
				t.Fatalf("import %s succeeded, want an error\n%s", c.kind, out)
			}
			msg := err.Error()
			for _, want := range c.want {
				if !strings.Contains(msg, want) {
					t.Errorf("import %s: %q lacks %q", c.kind, msg, want)
				}
			}
		}
		if got := runCommand(t, "export", "stock", "--database-url", db); strings.Count(got, "\n") != 1 {
			t.Errorf("stock after bad files: %q, want no position", got)
		}
		if got := runCommand(t, "export", "ledger", "--database-url", db); strings.Count(got, "\n") != 1 {
			t.Errorf("ledger after bad files: %q, want no entry", got)
		}
	})
}

func TestParseSpan(t *testing.T) {
	for _, c := range []struct {
		from, to string
		ok       bool
	}{
		{"", "", true},
		{"2026-06-01", "2026-07-01", true},
		{"2026-06-01T00:00:00+02:00", "", true},
		{"2026-07-01", "2026-06-01", false},
		{"2026-06-01", "2026-06-01", false},
		{"June", "", false},
	} {
		if _, err := parseSpan(c.from, c.to); (err == nil) != c.ok {
			t.Errorf("parseSpan(%q, %q): %v, want ok %v", c.from, c.to, err, c.ok)
		}
	}
}
