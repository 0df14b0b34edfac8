package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/archive"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// runCommandErr runs the stockd command line with args and returns its
// stdout and error.
func runCommandErr(args ...string) (string, error) {
	var out bytes.Buffer
	root := newRootCommand()
	root.SetArgs(args)
	root.SetOut(&out)
	root.SetErr(io.Discard)
	err := root.ExecuteContext(context.Background())
	return out.String(), err
}

// openBooks opens the database at dbURL, migrated, and closes it when t
// ends (or when the caller does).
func openBooks(t *testing.T, dbURL string) store.Store {
	t.Helper()
	s, err := storeurl.Open(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	return s
}

// failingStore fails the named archive step on its failAt-th call, as a
// run killed there would stop.
type failingStore struct {
	store.Store
	step   string
	failAt int
	calls  int
}

var errKilled = errors.New("killed here")

func (f *failingStore) fail(step string) error {
	if step != f.step {
		return nil
	}
	f.calls++
	if f.calls == f.failAt {
		return errKilled
	}
	return nil
}

func (f *failingStore) LedgerArchiveSeal(ctx context.Context, p store.LedgerArchiveSealParams) (stockd.LedgerArchive, error) {
	if err := f.fail("seal"); err != nil {
		return stockd.LedgerArchive{}, err
	}
	return f.Store.LedgerArchiveSeal(ctx, p)
}

func (f *failingStore) LedgerArchiveCheckpoint(ctx context.Context, p store.LedgerArchiveCheckpointParams) (store.LedgerArchiveCheckpointResult, error) {
	if err := f.fail("checkpoint"); err != nil {
		return store.LedgerArchiveCheckpointResult{}, err
	}
	return f.Store.LedgerArchiveCheckpoint(ctx, p)
}

// TestLedgerArchive: stockd ledger archive refuses a cut that is not a
// month's start or too recent, a consumer behind the cut and a file that
// exists; it writes the entries before the cut as JSON lines whose sha256
// it records, replaces them with one checkpoint per position (more than
// one transaction's worth), and leaves verify, rebuild --dry-run and the
// reconciliation's minute pass clean. A run killed after some positions,
// or before it recorded its file, is finished by the next run, which
// never takes a foreign file for its own.
func TestLedgerArchive(t *testing.T) {
	eachDatabase(t, func(t *testing.T, db string) {
		const skus = stockd.LedgerArchivePositionsPerTransactionMax + 20
		feb := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
		mar := feb.AddDate(0, 1, 0)
		s := openBooks(t, db)
		h := flowtest.NewHarness(t, s)
		h.Clock.Set(time.Date(2025, 1, 10, 9, 0, 0, 0, time.UTC))
		for i := range skus {
			sku := fmt.Sprintf("sku-%03d", i)
			h.SKU(sku)
			h.Receive(sku, "default", int64(10+i))
		}
		h.Reserve(stockd.LineRequest{SKU: "sku-000", Quantity: 4})
		h.Clock.Set(feb.AddDate(0, 0, 5))
		h.Receive("sku-001", "default", 5)
		h.Clock.Set(mar.AddDate(0, 0, 5))
		h.Receive("sku-002", "default", 6)
		// A receipt per SKU with its two derived events (the position and
		// its pool back in stock), and the hold.
		januaryEntries := int64(3*skus + 1)
		rec := reconcile.New(reconcile.Config{Store: s, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if res, err := rec.Minute(t.Context()); err != nil || !res.Clean() {
			t.Fatalf("minute pass before the archive: %+v, %v", res, err)
		}
		lease, err := s.RelayLeaseTry(t.Context(), "nats")
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.CursorAdvance(t.Context(), 1, time.Now()); err != nil {
			t.Fatal(err)
		}

		dir := t.TempDir()
		out := filepath.Join(dir, "ledger-2025-01.jsonl")
		archiveArgs := func(before, file string, extra ...string) []string {
			return append([]string{"ledger", "archive", "--database-url", db, "--before", before, "--out", file}, extra...)
		}
		for _, c := range []struct {
			args []string
			want string
		}{
			{archiveArgs("2025-02-15", out), "want the first day of a month"},
			{archiveArgs("2026-11-01", out), "less than 397 days back"},
			{archiveArgs("2026-11-01", out, "--keep-days", "0"), "--keep-days 0"},
			{archiveArgs("2025-02-01", out), "relay:nats at 1"},
		} {
			if got, err := runCommandErr(c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("stockd %s: %v\n%s\nwant a refusal naming %q", strings.Join(c.args, " "), err, got, c.want)
			}
		}
		seqMax, err := s.LedgerSeqMax(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if err := lease.CursorAdvance(t.Context(), seqMax, time.Now()); err != nil {
			t.Fatal(err)
		}
		foreign := filepath.Join(dir, "foreign.jsonl")
		if err := os.WriteFile(foreign, []byte("not an archive\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := runCommandErr(archiveArgs("2025-02-01", foreign)...); err == nil || !strings.Contains(err.Error(), "never overwrites") {
			t.Fatalf("archive over a file that exists: %v; want a refusal", err)
		}
		if got, _ := os.ReadFile(foreign); string(got) != "not an archive\n" {
			t.Fatalf("the foreign file now holds %q", got)
		}

		// Killed after the first transaction of checkpoints.
		killed := &failingStore{Store: s, step: "checkpoint", failAt: 2}
		if _, err := archive.Run(t.Context(), archive.Config{Store: killed, Before: feb, Out: out}); !errors.Is(err, errKilled) {
			t.Fatalf("archive killed in the second transaction: %v", err)
		}
		a := archiveOf(t, s, feb)
		if !a.Sealed() || a.Finished() || a.Entries != januaryEntries {
			t.Fatalf("archive after the kill = %+v; want sealed with %d entries, unfinished", a, januaryEntries)
		}
		wantFile(t, out, a.SHA256, a.Entries)
		checkClean(t, db) // half replaced: each transaction left the books whole
		if _, err := runCommandErr(archiveArgs("2025-03-01", filepath.Join(dir, "march.jsonl"))...); err == nil || !strings.Contains(err.Error(), "has not finished") {
			t.Fatalf("a second month while the first is unfinished: %v; want a refusal", err)
		}
		got := runCommand(t, archiveArgs("2025-02-01", out)...)
		if !strings.Contains(got, "finishing the archive before 2025-02-01") || !strings.Contains(got, fmt.Sprintf("%d positions checkpointed", skus)) {
			t.Fatalf("rerun after the kill:\n%s", got)
		}
		a = archiveOf(t, s, feb)
		if !a.Finished() || a.Positions != skus {
			t.Fatalf("archive = %+v; want finished with %d positions", a, skus)
		}
		wantFile(t, out, a.SHA256, a.Entries)
		if got := runCommand(t, "ledger", "archives", "--database-url", db); !strings.Contains(got, "before 2025-02-01: entries up to seq") ||
			!strings.Contains(got, a.SHA256+", finished ") {
			t.Fatalf("ledger archives:\n%s", got)
		}
		events, err := s.AuditEventList(t.Context(), store.AuditEventListParams{})
		if err != nil || len(events) != 1 || events[0].Action != "ledger_archive" || events[0].Resource != "archive:2025-02-01" ||
			!strings.Contains(events[0].Detail, a.SHA256) {
			t.Fatalf("audit trail = %+v, %v; want the archive with its sha256", events, err)
		}
		if got := runCommand(t, archiveArgs("2025-02-01", out)...); !strings.Contains(got, "finished at") {
			t.Fatalf("rerun of a finished archive:\n%s", got)
		}
		entries, err := s.LedgerList(t.Context(), store.LedgerListParams{Limit: stockd.PageSizeMax})
		if err != nil || len(entries) != skus+2 {
			t.Fatalf("ledger after the archive: %d entries, %v; want %d checkpoints and 2 later receipts", len(entries), err, skus)
		}
		for _, e := range entries[:len(entries)-2] {
			if e.BusinessType != stockd.BusinessCheckpoint || !e.CreatedAt.Equal(feb) {
				t.Fatalf("entry %+v: want a checkpoint at the cut", e)
			}
		}
		if c := h.Counters("sku-000", "default"); c.OnHand != 10 || c.Reserved != 4 {
			t.Fatalf("sku-000 = %+v; the archive changed the books", c)
		}
		checkClean(t, db)
		h.Clock.Set(mar.AddDate(0, 0, 6))
		h.Receive("sku-001", "default", 1)
		if res, err := rec.Minute(t.Context()); err != nil || !res.Clean() {
			t.Fatalf("minute pass after the archive: %+v, %v", res, err)
		}

		// Killed before it recorded its file: the next run takes the file
		// only while it holds the very bytes, never a foreign one.
		march := filepath.Join(dir, "ledger-2025-02.jsonl")
		killed = &failingStore{Store: s, step: "seal", failAt: 1}
		if _, err := archive.Run(t.Context(), archive.Config{Store: killed, Before: mar, Out: march}); !errors.Is(err, errKilled) {
			t.Fatalf("archive killed before the seal: %v", err)
		}
		if err := os.WriteFile(march, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := runCommandErr(archiveArgs("2025-03-01", march)...); err == nil || !strings.Contains(err.Error(), "is not this archive's file") {
			t.Fatalf("rerun over a foreign file: %v; want a refusal", err)
		}
		if got, _ := os.ReadFile(march); string(got) != "{}\n" {
			t.Fatalf("the foreign file now holds %q", got)
		}
		if err := os.Remove(march); err != nil {
			t.Fatal(err)
		}
		got = runCommand(t, archiveArgs("2025-03-01", march)...)
		a = archiveOf(t, s, mar)
		if !strings.Contains(got, "finishing the archive before 2025-03-01") || !a.Finished() || a.Entries != skus+1 {
			t.Fatalf("rerun after the kill before the seal = %+v:\n%s\nwant %d checkpoints of February and its receipt archived", a, got, skus)
		}
		wantFile(t, march, a.SHA256, a.Entries)
		checkClean(t, db)
	})
}

// archiveOf returns the archive record cut at before.
func archiveOf(t *testing.T, s store.Store, before time.Time) stockd.LedgerArchive {
	t.Helper()
	all, err := s.LedgerArchiveList(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all {
		if a.Before.Equal(before) {
			return a
		}
	}
	t.Fatalf("no archive before %s in %+v", before, all)
	return stockd.LedgerArchive{}
}

// wantFile checks that the archive file has the recorded sha256 and holds
// entries JSON lines of ledger entries in seq order.
func wantFile(t *testing.T, path, sum string, entries int64) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := sha256.Sum256(raw); hex.EncodeToString(got[:]) != sum {
		t.Fatalf("%s: sha256 %x, recorded %s", path, got, sum)
	}
	var n, last int64
	lines := bufio.NewScanner(bytes.NewReader(raw))
	for lines.Scan() {
		var e stockd.LedgerEntry
		if err := json.Unmarshal(lines.Bytes(), &e); err != nil || e.Seq <= last || e.BusinessType == "" {
			t.Fatalf("%s line %d: %+v, %v", path, n+1, e, err)
		}
		last = e.Seq
		n++
	}
	if n != entries {
		t.Fatalf("%s: %d entries, recorded %d", path, n, entries)
	}
}

// checkClean runs verify and ledger rebuild --dry-run, which fail the test
// on any difference.
func checkClean(t *testing.T, db string) {
	t.Helper()
	runCommand(t, "verify", "--database-url", db)
	runCommand(t, "ledger", "rebuild", "--dry-run", "--database-url", db)
}
