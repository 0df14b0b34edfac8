package sqlite

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestCheckpointer shows that commits leave the WAL to the checkpointer,
// that its passes keep the WAL from growing, that it truncates a WAL past
// its bound, and that Close stops it.
func TestCheckpointer(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "stockd.db")
	ticks := make(chan time.Time)
	passed := make(chan checkpointPass)
	const framesPerCommit = 1500 // above SQLite's automatic checkpoint, 1,000 pages
	s, err := open(ctx, path, checkpointConfig{
		WALFramesReset:    3*framesPerCommit - 1,
		WALFramesTruncate: 4 * framesPerCommit,
		Ticks:             ticks,
		Passed:            passed,
	})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	closed := false
	defer func() {
		if !closed {
			s.Close()
		}
	}()
	var autocheckpoint int
	if err := s.writer.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&autocheckpoint); err != nil || autocheckpoint != 0 {
		t.Fatalf("writer wal_autocheckpoint = %d, %v, want 0", autocheckpoint, err)
	}
	if _, err := s.writer.ExecContext(ctx, `CREATE TABLE checkpoint_fill (b BLOB NOT NULL) STRICT`); err != nil {
		t.Fatalf("create table: %v", err)
	}
	var pageSize int64
	if err := s.writer.QueryRowContext(ctx, `PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatalf("page size: %v", err)
	}
	// commit writes about framesPerCommit pages: one row fills most of one.
	commit := func() {
		t.Helper()
		_, err := s.writer.ExecContext(ctx, `
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
INSERT INTO checkpoint_fill SELECT randomblob(?) FROM n`, framesPerCommit, pageSize*3/4)
		if err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
	walBytes := func() int64 {
		t.Helper()
		info, err := os.Stat(path + "-wal")
		if err != nil {
			t.Fatalf("stat wal: %v", err)
		}
		return info.Size()
	}
	pass := func() checkpointPass {
		t.Helper()
		ticks <- time.Now()
		p := <-passed
		if p.Err != nil {
			t.Fatalf("checkpoint pass: %v", p.Err)
		}
		return p
	}

	// Had a commit checkpointed (as the automatic checkpoint did), the
	// second commit would have started the WAL over.
	commit()
	commit()
	if got, want := walBytes(), 2*framesPerCommit*pageSize; got < want {
		t.Fatalf("wal after two commits = %d bytes, want at least %d: a commit checkpointed", got, want)
	}
	first := pass()
	if first.WALFrames < 2*framesPerCommit || first.CheckpointedFrames != first.WALFrames || first.OnWriter {
		t.Fatalf("first pass = %+v, want all of at least %d frames checkpointed beside the writer", first, 2*framesPerCommit)
	}

	// With a pass between commits the writer starts the WAL over each time:
	// ten more commits leave the file as large as two did.
	walMax := walBytes()
	for range 10 {
		commit()
		if p := pass(); p.CheckpointedFrames != p.WALFrames || p.WALFrames > 2*framesPerCommit {
			t.Fatalf("pass = %+v, want all of at most %d frames checkpointed", p, 2*framesPerCommit)
		}
	}
	if got := walBytes(); got > walMax {
		t.Fatalf("wal after ten commits with passes = %d bytes, want at most %d", got, walMax)
	}

	// Past WALFramesReset a pass checkpoints on the writer too (here with
	// nothing left to copy, the writer being idle).
	for range 3 {
		commit()
	}
	if p := pass(); !p.OnWriter || p.Truncated || p.CheckpointedFrames != p.WALFrames {
		t.Fatalf("pass over %d frames = %+v, want all checkpointed, on the writer, not truncated", 3*framesPerCommit, p)
	}

	// Past WALFramesTruncate a pass empties the WAL file.
	for range 5 {
		commit()
	}
	if p := pass(); !p.Truncated {
		t.Fatalf("pass over %d frames = %+v, want truncated", 4*framesPerCommit, p)
	}
	if got := walBytes(); got != 0 {
		t.Fatalf("wal after truncate = %d bytes, want 0", got)
	}

	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	closed = true
	select {
	case ticks <- time.Now():
		t.Fatal("checkpointer took a tick after Close")
	default:
	}
}

// TestCheckpointerBacksOffABusyTruncate holds a reader's snapshot open while
// the WAL passes its bound: the first TRUNCATE waits busy_timeout and fails
// busy; the next pass must not try again at once (each try holds the writer
// for busy_timeout) but checkpoint PASSIVE on the writer instead.
func TestCheckpointerBacksOffABusyTruncate(t *testing.T) {
	if testing.Short() {
		t.Skip("waits busy_timeout once")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "stockd.db")
	ticks := make(chan time.Time)
	passed := make(chan checkpointPass)
	s, err := open(ctx, path, checkpointConfig{WALFramesReset: 10, WALFramesTruncate: 20, Ticks: ticks, Passed: passed})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	fill := func() {
		t.Helper()
		if _, err := s.writer.ExecContext(ctx, `
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)
INSERT INTO backoff_fill SELECT randomblob(3000) FROM n`); err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
	if _, err := s.writer.ExecContext(ctx, `CREATE TABLE backoff_fill (b BLOB NOT NULL) STRICT`); err != nil {
		t.Fatalf("create table: %v", err)
	}
	fill()
	// A reader's open transaction keeps its snapshot: frames written after
	// it cannot all be checkpointed, so the WAL cannot start over.
	reader, err := s.reader.BeginTx(ctx, nil)
	if err != nil {
		t.Fatalf("begin read: %v", err)
	}
	defer reader.Rollback()
	var rows int
	if err := reader.QueryRowContext(ctx, `SELECT count(*) FROM backoff_fill`).Scan(&rows); err != nil {
		t.Fatalf("read: %v", err)
	}
	fill()
	ticks <- time.Now()
	if p := <-passed; !p.Truncated || p.Err == nil {
		t.Fatalf("first pass past the bound with a reader open = %+v, want a busy truncate", p)
	}
	start := time.Now()
	ticks <- time.Now()
	p := <-passed
	if p.Truncated || !p.TruncateDeferred || !p.OnWriter || p.Err != nil {
		t.Fatalf("second pass = %+v, want the truncate deferred and a passive checkpoint on the writer", p)
	}
	if waited := time.Since(start); waited > busyTimeout/2 {
		t.Fatalf("second pass held the writer %v: it waited for the reader again", waited)
	}
}
