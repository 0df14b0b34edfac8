package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd/csvimport"
	"github.com/stockd/stockd/csvimport/csvimporttest"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store/postgres/pgtest"
	"github.com/stockd/stockd/store/storeurl"
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
			{"skus", skus, "imported 2 skus rows"},
			{"stock", stock, "imported 2 stock rows"},
			{"reservations", holds, "imported 3 reservations rows"},
			{"stock", stock, "0 applied, 2 replayed"},
			{"reservations", holds, "0 applied, 2 replayed"},
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

// TestImportSuite runs package csvimport's suite through the command
// line: the same files refused line for line as over HTTP, the same
// replays.
func TestImportSuite(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db string) {
		ctx := context.Background()
		s, err := storeurl.Open(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		e := engine.New(engine.Config{Store: s})
		t.Cleanup(e.Close)
		csvimporttest.Exercise(t, csvimporttest.Env{Store: s, Engine: e, Now: time.Now, Limits: csvimport.LimitsFile,
			Send: func(t *testing.T, kind csvimport.Kind, body []byte) (csvimport.Result, error) {
				path := writeFile(t, string(kind)+".csv", string(body))
				var out, progress bytes.Buffer
				root := newRootCommand()
				root.SetArgs([]string{"import", string(kind), "--json", "--database-url", db, path})
				root.SetOut(&out)
				root.SetErr(&progress)
				err := root.ExecuteContext(ctx)
				var res csvimport.Result
				if out.Len() > 0 {
					if jerr := json.Unmarshal(out.Bytes(), &res); jerr != nil {
						t.Fatalf("import %s --json printed %q: %v", kind, out.String(), jerr)
					}
				}
				if kind == csvimport.KindCounts && errors.Is(err, errDifferences) {
					err = nil // the count found what it was sent to find: exit 2, not a failed import
				}
				return res, err
			}})
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
