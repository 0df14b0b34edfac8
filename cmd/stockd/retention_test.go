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
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// TestIdempotencyRetentionFlag: serve refuses a retention out of bounds
// before it opens anything, by flag or by environment, with the bounds
// and the way to keep every answer in the message; the default is 30 days.
func TestIdempotencyRetentionFlag(t *testing.T) {
	path := filepath.Join(t.TempDir(), "never-opened.db")
	dbURL := "sqlite://" + path
	for _, c := range []struct {
		args []string
		env  string
		want string
	}{
		{args: []string{"--idempotency-retention", "1h"}, want: "idempotency retention 1h0m0s: want 0 (keep every answer) or 24h0m0s to 87600h0m0s"},
		{args: []string{"--idempotency-retention", "87601h"}, want: "idempotency retention 87601h0m0s"},
		{args: []string{"--idempotency-retention", "-24h"}, want: "idempotency retention -24h0m0s"},
		{env: "23h59m", want: "idempotency retention 23h59m0s"},
	} {
		if c.env != "" {
			t.Setenv("STOCKD_IDEMPOTENCY_RETENTION", c.env)
		}
		root := newRootCommand()
		root.SetArgs(append([]string{"serve", "--database-url", dbURL, "--addr", "127.0.0.1:0", "--log-level", "error"}, c.args...))
		root.SetOut(&bytes.Buffer{})
		err := root.ExecuteContext(t.Context())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("serve %v (env %q): %v, want an error with %q", c.args, c.env, err, c.want)
		}
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused retention opened the database: %v", err)
	}
	serve, _, err := newRootCommand().Find([]string{"serve"})
	if err != nil {
		t.Fatal(err)
	}
	if f := serve.Flags().Lookup("idempotency-retention"); f == nil || f.DefValue != stockd.IdempotencyRetentionDefault.String() || f.DefValue != "720h0m0s" {
		t.Fatalf("--idempotency-retention default = %v, want 720h0m0s", f)
	}
	for _, ok := range []time.Duration{0, 24 * time.Hour, stockd.IdempotencyRetentionDefault, stockd.IdempotencyRetentionMax} {
		cfg := Config{IdempotencyRetention: ok, ExpiryInterval: time.Second, RequestTimeout: time.Second}
		if err := cfg.validate(); err != nil {
			t.Errorf("retention %v refused: %v", ok, err)
		}
	}
}

// TestServeRunsThePruner: a server with a retention runs the pruner (its
// counter is on /metrics) and stops it on Close; one without runs none.
func TestServeRunsThePruner(t *testing.T) {
	eachDatabase(t, func(t *testing.T, dbURL string) {
		for _, retention := range []time.Duration{stockd.IdempotencyRetentionDefault, 0} {
			m := &Main{Config: Config{DatabaseURL: dbURL, Addr: "127.0.0.1:0", ExpiryInterval: time.Second, IdempotencyRetention: retention,
				RequestTimeout: time.Second, ShutdownTimeout: 5 * time.Second}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
			if err := m.Run(context.Background()); err != nil {
				t.Fatal(err)
			}
			resp, err := http.Get("http://" + m.Addr() + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatal(err)
			}
			exposed := strings.Contains(string(body), "\nstockd_idempotency_answers_pruned_total ")
			if want := retention != 0; exposed != want || (m.pruner != nil) != want {
				t.Errorf("retention %v: pruner running %v, counter exposed %v; want %v", retention, m.pruner != nil, exposed, want)
			}
			if err := m.Close(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestImportRerunPastTheRetention: a file imported again after its
// answers were pruned applies nothing twice, and says its rows were
// decided by an earlier run rather than failing on them.
func TestImportRerunPastTheRetention(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db string) {
		runCommand(t, "import", "skus", "--database-url", db, writeFile(t, "skus.csv", "sku,name,unit\nA,A,piece\nB,B,piece\n"))
		stock := writeFile(t, "stock.csv", "sku,location,pool,quantity,reference\nA,,,5,\nB,,,7,\n")
		runCommand(t, "import", "stock", "--database-url", db, stock)
		s, err := storeurl.Open(t.Context(), db)
		if err != nil {
			t.Fatal(err)
		}
		now := time.Now().Add(time.Hour)
		n, err := s.IdempotencyPrune(t.Context(), &store.IdempotencyPruneParams{CreatedBefore: now, Limit: stockd.IdempotencyPruneBatchMax, Now: now})
		s.Close()
		if err != nil || n != 4 {
			t.Fatalf("prune = %d, %v; want the 4 rows imported", n, err)
		}
		out := runCommand(t, "import", "stock", "--database-url", db, stock)
		if want := "0 applied, 0 replayed, 0 unchanged, 2 decided by a send older than the idempotency retention"; !strings.Contains(out, want) {
			t.Errorf("rerun: %q, want %q", out, want)
		}
		if got := runCommand(t, "export", "stock", "--database-url", db); !strings.Contains(got, "A,default,normal,5,") || !strings.Contains(got, "B,default,normal,7,") {
			t.Errorf("export after the rerun:\n%s\nwant on_hand 5 and 7, received once", got)
		}
	})
}
