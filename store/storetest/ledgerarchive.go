package storetest

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// testLedgerArchive: the cut is the last entry created before the month;
// an archive is started once, sealed once, checkpointed only while sealed
// and unfinished; a checkpoint replaces a position's entries up to the cut
// with one entry at the last one's seq holding its counters, the books
// still verify, and a second run and a second archive on top of the first
// keep them so.
func testLedgerArchive(t *testing.T, h *flowtest.Harness) {
	s := h.Store
	feb := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	mar := feb.AddDate(0, 1, 0)
	ka := stockd.PositionKey{SKU: "a", Location: "default", Pool: stockd.PoolDefault}
	kb := stockd.PositionKey{SKU: "b", Location: "default", Pool: stockd.PoolDefault}
	if cut, err := s.LedgerArchiveCutSeq(ctx, feb); err != nil || cut != 0 {
		t.Fatalf("cut of an empty ledger = %d, %v; want 0", cut, err)
	}
	h.Clock.Set(time.Date(2025, 1, 10, 12, 0, 0, 0, time.UTC))
	h.SKU("a")
	h.SKU("b")
	h.Receive("a", "default", 5)
	h.Receive("b", "default", 7)
	h.Reserve(line("a", 2))
	h.Clock.Set(feb.Add(-time.Microsecond))
	h.Receive("a", "default", 1)
	h.Clock.Set(feb)
	h.Receive("b", "default", 1) // at the cut: not before it
	h.Clock.Set(feb.Add(time.Hour))
	h.Receive("a", "default", 3)
	// Each SKU's first receipt brings its derived events, back in stock at
	// the position and in the pool, both at the position: they are
	// entries like any other, archived and replaced with the rest.
	all, err := s.LedgerList(ctx, storeLedger("", 0, 100))
	if err != nil || len(all) != 10 {
		t.Fatalf("ledger = %d entries, %v; want 10", len(all), err)
	}
	layout := []struct {
		typ string
		pos stockd.PositionKey
	}{
		{stockd.BusinessReceipt, ka}, {stockd.EventStockBackInStock, ka}, {stockd.EventPoolBackInStock, ka}, // a's first receipt
		{stockd.BusinessReceipt, kb}, {stockd.EventStockBackInStock, kb}, {stockd.EventPoolBackInStock, kb}, // b's first receipt
		{stockd.BusinessReserve, ka},
		{stockd.BusinessReceipt, ka}, // the last before the cut
		{stockd.BusinessReceipt, kb}, // at the cut
		{stockd.BusinessReceipt, ka},
	}
	for i, w := range layout {
		if all[i].BusinessType != w.typ || all[i].Position != w.pos {
			t.Fatalf("ledger entry %d = %+v; want %s at %+v", i, all[i], w.typ, w.pos)
		}
	}
	cut, err := s.LedgerArchiveCutSeq(ctx, feb)
	if err != nil || cut != all[7].Seq {
		t.Fatalf("cut before %s = %d, %v; want %d, the last entry before it", feb, cut, err, all[7].Seq)
	}
	if cut, err := s.LedgerArchiveCutSeq(ctx, mar); err != nil || cut != all[9].Seq {
		t.Fatalf("cut before %s = %d, %v; want %d, the whole ledger", mar, cut, err, all[9].Seq)
	}

	if got, err := s.LedgerArchiveList(ctx); err != nil || len(got) != 0 {
		t.Fatalf("archives of a new database = %+v, %v; want none", got, err)
	}
	now := time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)
	a, err := s.LedgerArchiveStart(ctx, store.LedgerArchiveStartParams{Before: feb, CutSeq: cut, Path: "/archive/2025-01.jsonl", At: now})
	if err != nil || !a.Before.Equal(feb) || a.CutSeq != cut || a.Sealed() || a.Finished() || !a.StartedAt.Equal(now) {
		t.Fatalf("start = %+v, %v; want an unsealed archive at %d", a, err, cut)
	}
	if _, err := s.LedgerArchiveStart(ctx, store.LedgerArchiveStartParams{Before: feb, CutSeq: cut, Path: "/elsewhere", At: now}); !errors.Is(err, store.ErrArchiveState) {
		t.Fatalf("second start: %v; want ErrArchiveState", err)
	}
	both := store.LedgerArchiveCheckpointParams{Before: feb, Positions: []stockd.PositionKey{ka, kb}}
	if _, err := s.LedgerArchiveCheckpoint(ctx, both); !errors.Is(err, store.ErrArchiveState) {
		t.Fatalf("checkpoint before the seal: %v; want ErrArchiveState", err)
	}
	var seqs []int64
	err = s.LedgerArchiveEach(ctx, cut, func(e stockd.LedgerEntry) error {
		seqs = append(seqs, e.Seq)
		return nil
	})
	if err != nil || len(seqs) != 8 || seqs[0] != all[0].Seq || seqs[7] != cut {
		t.Fatalf("entries to archive = %v, %v; want the first 8, events included, in seq order", seqs, err)
	}
	sum := strings.Repeat("ab", 32)
	sealed, err := s.LedgerArchiveSeal(ctx, store.LedgerArchiveSealParams{Before: feb, SHA256: sum, Entries: 8})
	if err != nil || sealed.SHA256 != sum || sealed.Entries != 8 {
		t.Fatalf("seal = %+v, %v", sealed, err)
	}
	if _, err := s.LedgerArchiveSeal(ctx, store.LedgerArchiveSealParams{Before: feb, SHA256: strings.Repeat("cd", 32), Entries: 8}); !errors.Is(err, store.ErrArchiveState) {
		t.Fatalf("second seal: %v; want ErrArchiveState", err)
	}
	if got, err := s.LedgerArchiveList(ctx); err != nil || len(got) != 1 || got[0].SHA256 != sum {
		t.Fatalf("archives = %+v, %v; want the first sha256 kept", got, err)
	}
	if _, err := s.LedgerArchiveCheckpoint(ctx, store.LedgerArchiveCheckpointParams{Before: feb}); err == nil {
		t.Fatal("checkpoint of no position: no error")
	}

	aAtCut := all[7].After // a: 5 + 1 on hand, 2 reserved
	if all[5].After != all[3].After {
		t.Fatalf("b's event = %+v; want a copy of its receipt's counters %+v", all[5], all[3].After)
	}
	r, err := s.LedgerArchiveCheckpoint(ctx, both)
	if err != nil || r.Replaced != 2 || r.Deleted != 8 || !r.Done {
		t.Fatalf("checkpoint = %+v, %v; want 2 positions replaced, 8 entries deleted (a's 5, b's 3), done", r, err)
	}
	if r, err := s.LedgerArchiveCheckpoint(ctx, both); err != nil || r.Replaced != 0 || r.Deleted != 0 || !r.Done {
		t.Fatalf("second checkpoint = %+v, %v; want nothing to do: both hold theirs", r, err)
	}
	after, err := s.LedgerList(ctx, storeLedger("", 0, 100))
	if err != nil || len(after) != 4 {
		t.Fatalf("ledger after the archive = %+v, %v; want 2 checkpoints and the 2 later entries", after, err)
	}
	wantA := stockd.LedgerEntry{Seq: cut, BusinessType: stockd.BusinessCheckpoint, BusinessID: "archive:2025-02-01", Position: ka,
		Delta: aAtCut, After: aAtCut, CreatedAt: feb}
	// b's checkpoint sits at its last entry before the cut, its pool
	// event, holding its receipt's counters.
	wantB := stockd.LedgerEntry{Seq: all[5].Seq, BusinessType: stockd.BusinessCheckpoint, BusinessID: "archive:2025-02-01", Position: kb,
		Delta: all[3].After, After: all[3].After, CreatedAt: feb}
	if !equalEntry(after[0], wantB) || !equalEntry(after[1], wantA) || after[2].Seq != all[8].Seq || after[3].Seq != all[9].Seq {
		t.Fatalf("ledger after the archive = %+v; want %+v, %+v, then entries %d and %d", after, wantB, wantA, all[8].Seq, all[9].Seq)
	}
	if rep := h.Verify(); !rep.Clean() {
		t.Fatalf("verify after the archive: %+v", rep)
	}
	if e, ok, err := s.LedgerLastAsOf(ctx, ka, feb); err != nil || !ok || e.After != aAtCut {
		t.Fatalf("a as of the cut = %+v, %t, %v; want the checkpoint's %+v", e, ok, err, aAtCut)
	}
	if seq, err := s.LedgerSeqMax(ctx); err != nil || seq != all[9].Seq {
		t.Fatalf("LedgerSeqMax = %d, %v; want %d, unchanged", seq, err, all[9].Seq)
	}
	done, err := s.LedgerArchiveFinish(ctx, store.LedgerArchiveFinishParams{Before: feb, Positions: 2, At: now.Add(time.Minute)})
	if err != nil || !done.Finished() || done.Positions != 2 || !done.FinishedAt.Equal(now.Add(time.Minute)) {
		t.Fatalf("finish = %+v, %v", done, err)
	}
	if _, err := s.LedgerArchiveCheckpoint(ctx, both); !errors.Is(err, store.ErrArchiveState) {
		t.Fatalf("checkpoint after the finish: %v; want ErrArchiveState", err)
	}
	if _, err := s.LedgerArchiveFinish(ctx, store.LedgerArchiveFinishParams{Before: feb, At: now}); !errors.Is(err, store.ErrArchiveState) {
		t.Fatalf("second finish: %v; want ErrArchiveState", err)
	}

	// A second month on top: the first checkpoints are archived with it.
	h.Clock.Set(mar.AddDate(0, 0, 3))
	h.Receive("b", "default", 2)
	cut2, err := s.LedgerArchiveCutSeq(ctx, mar)
	if err != nil || cut2 != all[9].Seq {
		t.Fatalf("cut before %s = %d, %v; want %d", mar, cut2, err, all[9].Seq)
	}
	if _, err := s.LedgerArchiveStart(ctx, store.LedgerArchiveStartParams{Before: mar, CutSeq: cut2, Path: "/archive/2025-02.jsonl", At: now}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LedgerArchiveSeal(ctx, store.LedgerArchiveSealParams{Before: mar, SHA256: sum, Entries: 4}); err != nil { // 2 checkpoints and 2 receipts
		t.Fatal(err)
	}
	if r, err := s.LedgerArchiveCheckpoint(ctx, store.LedgerArchiveCheckpointParams{Before: mar, Positions: []stockd.PositionKey{ka, kb}}); err != nil || r.Replaced != 2 || r.Deleted != 4 || !r.Done {
		t.Fatalf("second month's checkpoint = %+v, %v; want 2 positions replaced, 4 entries deleted", r, err)
	}
	after, err = s.LedgerList(ctx, storeLedger("", 0, 100))
	if err != nil || len(after) != 3 || after[0].BusinessID != "archive:2025-03-01" || after[1].BusinessID != "archive:2025-03-01" {
		t.Fatalf("ledger after the second archive = %+v, %v; want 2 checkpoints of March and the receipt", after, err)
	}
	if rep := h.Verify(); !rep.Clean() {
		t.Fatalf("verify after the second archive: %+v", rep)
	}
	if got, err := s.LedgerArchiveList(ctx); err != nil || len(got) != 2 || !got[0].Before.Equal(feb) || !got[1].Before.Equal(mar) {
		t.Fatalf("archives = %+v, %v; want February's then March's", got, err)
	}
}

// testLedgerArchiveSteps: positions with more entries than one
// transaction may delete are replaced in steps, each leaving a checkpoint
// at the last entry it took, the books verifying after every one; a rerun
// of a finished chunk does nothing.
func testLedgerArchiveSteps(t *testing.T, h *flowtest.Harness) {
	s := h.Store
	feb := time.Date(2025, 2, 1, 0, 0, 0, 0, time.UTC)
	h.Clock.Set(time.Date(2025, 1, 10, 12, 0, 0, 0, time.UTC))
	h.SKU("a")
	h.SKU("b")
	for range 5 {
		h.Receive("a", "default", 1)
	}
	h.Receive("b", "default", 2)
	// Each first receipt brings 2 events: a holds seqs 1 to 7 (its first
	// receipt, the events at 2 and 3, 4 more receipts), b 8 to 10.
	h.Clock.Set(feb.AddDate(0, 0, 3))
	cut, err := s.LedgerArchiveCutSeq(ctx, feb)
	if err != nil || cut != 10 {
		t.Fatalf("cut = %d, %v; want 10", cut, err)
	}
	if _, err := s.LedgerArchiveStart(ctx, store.LedgerArchiveStartParams{Before: feb, CutSeq: cut, Path: "/a.jsonl", At: h.Clock.Now()}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.LedgerArchiveSeal(ctx, store.LedgerArchiveSealParams{Before: feb, SHA256: strings.Repeat("0", 64), Entries: 10}); err != nil {
		t.Fatal(err)
	}
	ka := stockd.PositionKey{SKU: "a", Location: "default", Pool: stockd.PoolDefault}
	kb := stockd.PositionKey{SKU: "b", Location: "default", Pool: stockd.PoolDefault}
	p := store.LedgerArchiveCheckpointParams{Before: feb, Positions: []stockd.PositionKey{ka, kb}, EntriesMax: 2}
	if _, err := s.LedgerArchiveCheckpoint(ctx, store.LedgerArchiveCheckpointParams{Before: feb, Positions: p.Positions, EntriesMax: 1}); err == nil {
		t.Fatal("a budget of 1 entry: no error")
	}
	// a: 2 entries, then the step's checkpoint and 1 more, five times,
	// the last finishing a with the budget spent (not done); then b the
	// same way: 2 entries, then the checkpoint and its last.
	want := []store.LedgerArchiveCheckpointResult{{Deleted: 2}, {Deleted: 2}, {Deleted: 2}, {Deleted: 2}, {Deleted: 2}, {Replaced: 1, Deleted: 2},
		{Deleted: 2}, {Replaced: 1, Deleted: 2, Done: true}}
	for i, w := range want {
		r, err := s.LedgerArchiveCheckpoint(ctx, p)
		if err != nil || r != w {
			t.Fatalf("step %d = %+v, %v; want %+v", i+1, r, err, w)
		}
		if rep := h.Verify(); !rep.Clean() {
			t.Fatalf("verify after step %d: %+v", i+1, rep)
		}
	}
	if r, err := s.LedgerArchiveCheckpoint(ctx, p); err != nil || r != (store.LedgerArchiveCheckpointResult{Done: true}) {
		t.Fatalf("a rerun = %+v, %v; want nothing to do", r, err)
	}
	entries, err := s.LedgerList(ctx, storeLedger("", 0, 100))
	if err != nil || len(entries) != 2 || entries[0].Seq != 7 || entries[0].After.OnHand != 5 || entries[1].Seq != 10 || entries[1].After.OnHand != 2 {
		t.Fatalf("ledger = %+v, %v; want a's checkpoint at 7 holding 5 and b's at 10 holding 2", entries, err)
	}
}

// testLedgerCursorList: every consumer's cursor, once it has one.
func testLedgerCursorList(t *testing.T, h *flowtest.Harness) {
	s := h.Store
	if got, err := s.LedgerCursorList(ctx); err != nil || len(got) != 0 {
		t.Fatalf("cursors of a new database = %+v, %v; want none", got, err)
	}
	lease, err := s.RelayLeaseTry(ctx, "nats")
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(ctx) //nolint:errcheck // test cleanup
	if err := lease.CursorAdvance(ctx, 7, time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := s.AlertCursorSet(ctx, 3); err != nil {
		t.Fatal(err)
	}
	run := stockd.ReconcileRun{Pass: stockd.PassMinute, StartedAt: time.Now(), FinishedAt: time.Now(), CursorFrom: 0, CursorTo: 5}
	if _, err := s.ReconcileRecord(ctx, store.ReconcileRecordParams{Run: run}); err != nil {
		t.Fatal(err)
	}
	w, secret, err := stockd.NewWebhook("https://hooks.example.com/stockd", []string{stockd.BusinessReserve}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w.Cursor = 9
	if err := s.WebhookCreate(ctx, store.WebhookCreateParams{Webhook: w, Secret: secret}); err != nil {
		t.Fatal(err)
	}
	got, err := s.LedgerCursorList(ctx)
	want := []stockd.LedgerCursor{{Consumer: "alert", Seq: 3}, {Consumer: "reconcile:" + stockd.PassMinute, Seq: 5}, {Consumer: "relay:nats", Seq: 7},
		{Consumer: "webhook:" + w.ID, Seq: 9}}
	if err != nil || len(got) != len(want) {
		t.Fatalf("cursors = %+v, %v; want %+v", got, err, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("cursors = %+v; want %+v", got, want)
		}
	}
}

func equalEntry(got, want stockd.LedgerEntry) bool {
	return got.Seq == want.Seq && got.BusinessType == want.BusinessType && got.BusinessID == want.BusinessID &&
		got.Position == want.Position && got.Delta == want.Delta && got.After == want.After && got.CreatedAt.Equal(want.CreatedAt)
}
