// Package archive moves the ledger's entries before a month's start to a
// file of JSON lines and leaves, per position, one checkpoint entry holding
// its counters at the cut (stockd ledger archive). It refuses unless the
// cut is old enough, the books verify clean and every consumer of the
// ledger has read past the cut; it writes, fsyncs and reads the file back
// and records its sha256 before it deletes anything; and a rerun finishes
// an interrupted run without ever overwriting a file it did not write.
package archive

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/store"
)

// ErrRefused marks an archive that would not be safe to run now: the
// message says what to do first. Nothing was deleted.
var ErrRefused = errors.New("refused")

// Config is one archive run.
type Config struct {
	Store store.Store
	// Before is the cut: the first instant of a month, UTC.
	Before time.Time
	// Out is the file the archived entries go to.
	Out string
	// KeepDays is how many days back the cut must lie at least. Defaults
	// to stockd.LedgerArchiveKeepDaysDefault; negative is refused.
	KeepDays int
	// Now defaults to time.Now.
	Now func() time.Time
	// Progress receives one line per step; may be nil.
	Progress io.Writer
	// EntriesPerTransaction bounds the entries one checkpoint transaction
	// deletes. Defaults to stockd.LedgerArchiveEntriesPerTransactionMax.
	EntriesPerTransaction int
}

// Result is what a run did.
type Result struct {
	Archive stockd.LedgerArchive
	// Resumed is true when the run finished one an earlier run started;
	// Done when the archive had finished before this run.
	Resumed, Done bool
	// Replaced counts the positions this run replaced with checkpoints.
	Replaced int
}

// Run archives the ledger before cfg.Before to cfg.Out, or finishes the
// archive of cfg.Before an earlier run left unfinished.
func Run(ctx context.Context, cfg Config) (Result, error) {
	var res Result
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.KeepDays == 0 {
		cfg.KeepDays = stockd.LedgerArchiveKeepDaysDefault
	}
	if cfg.Progress == nil {
		cfg.Progress = io.Discard
	}
	if err := checkCut(cfg); err != nil {
		return res, err
	}
	out, err := filepath.Abs(cfg.Out)
	if err != nil {
		return res, fmt.Errorf("archive file %q: %w", cfg.Out, err)
	}
	s := cfg.Store
	archives, err := s.LedgerArchiveList(ctx)
	if err != nil {
		return res, err
	}
	var rec *stockd.LedgerArchive
	for i, a := range archives {
		switch {
		case a.Before.Equal(cfg.Before):
			rec = &archives[i]
		case !a.Finished():
			return res, fmt.Errorf("%w: the archive before %s has not finished: run it again with --before %s first",
				ErrRefused, day(a.Before), day(a.Before))
		case !a.Before.Before(cfg.Before):
			return res, fmt.Errorf("%w: the ledger is archived up to %s already", ErrRefused, day(a.Before))
		}
	}
	if rec != nil && rec.Finished() {
		res.Archive, res.Done = *rec, true
		fmt.Fprintf(cfg.Progress, "the archive before %s finished at %s: %d entries in %s (sha256 %s)\n",
			day(rec.Before), rec.FinishedAt.Format(time.RFC3339), rec.Entries, rec.Path, rec.SHA256)
		return res, nil
	}
	if err := checkVerify(ctx, s); err != nil {
		return res, err
	}
	if rec == nil {
		cut, err := s.LedgerArchiveCutSeq(ctx, cfg.Before)
		if err != nil {
			return res, err
		}
		if cut == 0 {
			return res, fmt.Errorf("%w: no ledger entry was created before %s", ErrRefused, day(cfg.Before))
		}
		if err := checkCursors(ctx, s, cut); err != nil {
			return res, err
		}
		if _, err := os.Lstat(out); err == nil {
			return res, fmt.Errorf("%w: %s exists: an archive never overwrites a file; choose another --out or move it away", ErrRefused, out)
		}
		a, err := s.LedgerArchiveStart(ctx, store.LedgerArchiveStartParams{Before: cfg.Before, CutSeq: cut, Path: out, At: cfg.Now()})
		if err != nil {
			return res, err
		}
		rec = &a
		fmt.Fprintf(cfg.Progress, "archiving the ledger up to entry %d (every entry created before %s)\n", cut, day(cfg.Before))
	} else {
		res.Resumed = true
		if err := checkCursors(ctx, s, rec.CutSeq); err != nil {
			return res, err
		}
		fmt.Fprintf(cfg.Progress, "finishing the archive before %s, started at %s, up to entry %d\n",
			day(rec.Before), rec.StartedAt.Format(time.RFC3339), rec.CutSeq)
	}

	var positions []stockd.PositionKey
	if !rec.Sealed() {
		sum, entries, keys, err := write(ctx, s, rec.CutSeq, out)
		if err != nil {
			return res, err
		}
		sealed, err := s.LedgerArchiveSeal(ctx, store.LedgerArchiveSealParams{Before: rec.Before, SHA256: sum, Entries: entries})
		if err != nil {
			return res, err
		}
		rec, positions = &sealed, keys
		fmt.Fprintf(cfg.Progress, "wrote %d entries to %s, sha256 %s\n", entries, out, sum)
	} else {
		if err := checkFile(out, rec.SHA256); err != nil {
			return res, err
		}
		if positions, err = positionsOf(ctx, s, rec.CutSeq); err != nil {
			return res, err
		}
	}

	for chunk := range slices.Chunk(positions, stockd.LedgerArchivePositionsPerTransactionMax) {
		// A chunk takes more than one transaction when its positions hold
		// more entries than one may delete.
		for {
			r, err := s.LedgerArchiveCheckpoint(ctx, store.LedgerArchiveCheckpointParams{Before: rec.Before, Positions: chunk, EntriesMax: cfg.EntriesPerTransaction})
			if err != nil {
				return res, fmt.Errorf("after %d positions replaced: %w", res.Replaced, err)
			}
			res.Replaced += r.Replaced
			if r.Done {
				break
			}
			if r.Deleted == 0 {
				return res, fmt.Errorf("after %d positions replaced: a checkpoint transaction deleted nothing and did not finish: the store broke its promise", res.Replaced)
			}
		}
	}
	// The audit trail names every archive: what left the ledger, where to,
	// and the sha256 that proves the file. Recorded before the finish, so
	// that a run stopped between the two records it on the rerun.
	detail := fmt.Sprintf("entries up to seq %d (%d) to %s, sha256 %s; %d positions checkpointed",
		rec.CutSeq, rec.Entries, out, rec.SHA256, len(positions))
	if err := s.AuditEventInsert(ctx, stockd.NewAuditEvent(cfg.Now(), "", "ledger_archive", stockd.CheckpointBusinessID(rec.Before),
		stockd.AuditOutcomeDone, detail)); err != nil {
		return res, fmt.Errorf("audit: %w", err)
	}
	done, err := s.LedgerArchiveFinish(ctx, store.LedgerArchiveFinishParams{Before: rec.Before, Positions: int64(len(positions)), At: cfg.Now()})
	if err != nil {
		return res, err
	}
	res.Archive = done
	fmt.Fprintf(cfg.Progress, "replaced the entries of %d positions with checkpoints (%d by this run)\n", len(positions), res.Replaced)
	return res, nil
}

// checkCut refuses a cut that is not a month's start at least KeepDays
// back.
func checkCut(cfg Config) error {
	if cfg.KeepDays < 0 {
		return fmt.Errorf("%w: --keep-days %d: want 0 or more days", ErrRefused, cfg.KeepDays)
	}
	if !stockd.MonthStart(cfg.Before) {
		return fmt.Errorf("%w: --before %s: want the first day of a month (YYYY-MM-01)", ErrRefused, cfg.Before.UTC().Format(time.RFC3339))
	}
	if latest := cfg.Now().UTC().AddDate(0, 0, -cfg.KeepDays); cfg.Before.After(latest) {
		return fmt.Errorf("%w: --before %s lies less than %d days back (the latest cut allowed now is %s): the demand windows of replenishment read the ledger that far",
			ErrRefused, day(cfg.Before), cfg.KeepDays, day(latest))
	}
	return nil
}

// checkVerify refuses books that do not verify clean: a checkpoint takes
// the counters of the last archived entry as the truth, which only a clean
// ledger makes them.
func checkVerify(ctx context.Context, s store.Store) error {
	rep, err := audit.Verify(ctx, s)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if !rep.Clean() {
		return fmt.Errorf("%w: verify finds %d differences: resolve them first (stockd verify)", ErrRefused, rep.Count)
	}
	return nil
}

// checkCursors refuses while a consumer of the ledger has not read past
// the cut: the entries it has still to read would be gone.
func checkCursors(ctx context.Context, s store.Store, cut int64) error {
	cursors, err := s.LedgerCursorList(ctx)
	if err != nil {
		return err
	}
	var behind []string
	for _, c := range cursors {
		if c.Seq < cut {
			behind = append(behind, c.String())
		}
	}
	if len(behind) > 0 {
		return fmt.Errorf("%w: consumers of the ledger have not read up to entry %d, the cut: %s (let them catch up; a disabled webhook resumes only by a redelivery from after the cut)",
			ErrRefused, cut, strings.Join(behind, ", "))
	}
	return nil
}

// write writes the entries up to cut to a temporary file beside out as
// JSON lines, fsyncs it, reads it back, and links it to out unless out
// exists. An out that exists is taken only when it holds these very bytes
// (a run that stopped before it recorded the sha256); anything else is a
// foreign file, never overwritten.
func write(ctx context.Context, s store.Store, cut int64, out string) (sum string, entries int64, positions []stockd.PositionKey, err error) {
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".*.partial")
	if err != nil {
		return "", 0, nil, fmt.Errorf("archive file: %w", err)
	}
	defer os.Remove(tmp.Name()) //nolint:errcheck // gone once linked; a leftover is harmless
	defer tmp.Close()           //nolint:errcheck // closed and checked below
	h := sha256.New()
	w := bufio.NewWriterSize(io.MultiWriter(tmp, h), 1<<20)
	enc := json.NewEncoder(w)
	seen := map[stockd.PositionKey]bool{}
	last := int64(0)
	err = s.LedgerArchiveEach(ctx, cut, func(e stockd.LedgerEntry) error {
		if e.Seq <= last || e.Seq > cut {
			return fmt.Errorf("archive: entry %d after %d, cut %d: the store broke its order", e.Seq, last, cut)
		}
		last = e.Seq
		entries++
		if !seen[e.Position] {
			seen[e.Position] = true
			positions = append(positions, e.Position)
		}
		return enc.Encode(e)
	})
	if err != nil {
		return "", 0, nil, fmt.Errorf("archive file: %w", err)
	}
	if err := w.Flush(); err != nil {
		return "", 0, nil, fmt.Errorf("archive file: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return "", 0, nil, fmt.Errorf("archive file: fsync: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", 0, nil, fmt.Errorf("archive file: %w", err)
	}
	sum = hex.EncodeToString(h.Sum(nil))
	if err := readBack(tmp.Name(), sum, entries, cut); err != nil {
		return "", 0, nil, err
	}
	if err := os.Link(tmp.Name(), out); errors.Is(err, os.ErrExist) {
		if err := checkFile(out, sum); err != nil {
			return "", 0, nil, err
		}
	} else if err != nil {
		return "", 0, nil, fmt.Errorf("archive file: %w", err)
	}
	if err := syncDir(filepath.Dir(out)); err != nil {
		return "", 0, nil, err
	}
	slices.SortFunc(positions, comparePositions)
	return sum, entries, positions, nil
}

// readBack reads the file as written to disk: every line an entry in seq
// order up to cut, as many as were written, and the same sha256.
func readBack(path, sum string, entries, cut int64) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("archive file: read back: %w", err)
	}
	defer f.Close() //nolint:errcheck // read only
	// The decoder returns io.EOF only once the file is read to its end,
	// so every byte has passed through h by then.
	h := sha256.New()
	dec := json.NewDecoder(io.TeeReader(bufio.NewReaderSize(f, 1<<20), h))
	var n, last int64
	for {
		var e stockd.LedgerEntry
		if err := dec.Decode(&e); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return fmt.Errorf("archive file: read back line %d: %w", n+1, err)
		}
		if e.Seq <= last || e.Seq > cut {
			return fmt.Errorf("archive file: read back line %d: entry %d after %d, cut %d", n+1, e.Seq, last, cut)
		}
		last = e.Seq
		n++
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != entries || got != sum {
		return fmt.Errorf("archive file: read back %d entries, sha256 %s; wrote %d, sha256 %s", n, got, entries, sum)
	}
	return nil
}

// checkFile refuses a file that is missing or does not hold the bytes
// whose sha256 is sum.
func checkFile(path, sum string) error {
	got, err := fileSHA256(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: the archive file %s is missing: the sha256 recorded for it is %s; put the file back (or give its path with --out)", ErrRefused, path, sum)
	}
	if err != nil {
		return fmt.Errorf("archive file: %w", err)
	}
	if got != sum {
		return fmt.Errorf("%w: %s exists and is not this archive's file (sha256 %s, want %s): it is never overwritten; choose another --out or move it away", ErrRefused, path, got, sum)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close() //nolint:errcheck // read only
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// syncDir makes a new directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("archive file: %w", err)
	}
	defer d.Close() //nolint:errcheck // read only
	if err := d.Sync(); err != nil {
		return fmt.Errorf("archive file: fsync %s: %w", dir, err)
	}
	return nil
}

// positionsOf lists, sorted, the positions with an entry up to cut: a
// rerun's work list, those already replaced included (the store skips
// them).
func positionsOf(ctx context.Context, s store.Store, cut int64) ([]stockd.PositionKey, error) {
	seen := map[stockd.PositionKey]bool{}
	var out []stockd.PositionKey
	err := s.LedgerArchiveEach(ctx, cut, func(e stockd.LedgerEntry) error {
		if !seen[e.Position] {
			seen[e.Position] = true
			out = append(out, e.Position)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, comparePositions)
	return out, nil
}

func comparePositions(a, b stockd.PositionKey) int {
	switch {
	case a.Less(b):
		return -1
	case b.Less(a):
		return 1
	}
	return 0
}

// Cut returns the latest cut of any archive record, finished or not, and
// false when the ledger was never archived: no answer as of a time before
// it can be rebuilt from the ledger.
func Cut(archives []stockd.LedgerArchive) (time.Time, bool) {
	var cut time.Time
	for _, a := range archives {
		if a.Before.After(cut) {
			cut = a.Before
		}
	}
	return cut, !cut.IsZero()
}

// CutSeq returns the highest cut seq of any archive record, finished or
// not, 0 when the ledger was never archived: the entries up to it may be
// gone from the ledger.
func CutSeq(archives []stockd.LedgerArchive) int64 {
	var cut int64
	for _, a := range archives {
		cut = max(cut, a.CutSeq)
	}
	return cut
}

func day(t time.Time) string { return t.UTC().Format(stockd.DateLayout) }
