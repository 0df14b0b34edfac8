package stockd

import (
	"fmt"
	"time"
)

// BusinessCheckpoint is the ledger entry that replaces a position's
// archived entries (stockd ledger archive): its counters are the
// position's at the cut, its delta the same counters (an opening balance
// from zero, so that the deltas still add up to the snapshot), its time
// the cut and its seq that of the last entry it replaces. The audit and
// the reconciliation's minute pass take it as the position's opening
// balance, as they take a reconciliation entry.
const BusinessCheckpoint = "checkpoint"

// Limits and defaults of the ledger archive.
const (
	// LedgerArchiveKeepDaysDefault is how far back the cut must lie at
	// least: the longest demand window (DemandDaysMax) plus a month, so
	// that replenishment never reads sales the archive took away.
	LedgerArchiveKeepDaysDefault = DemandDaysMax + 31
	// LedgerArchivePositionsPerTransactionMax bounds the positions one
	// transaction of the archive replaces with their checkpoints: each
	// holds its positions' ledger rows locked while it runs.
	LedgerArchivePositionsPerTransactionMax = 100
	// LedgerArchiveEntriesPerTransactionMax bounds the entries one such
	// transaction deletes: a position with more is replaced in steps, each
	// leaving a checkpoint at the last entry it took, so that a hot SKU's
	// month never holds SQLite's one writer (or a PostgreSQL transaction)
	// for long.
	LedgerArchiveEntriesPerTransactionMax = 10000
	// LedgerArchivesMax bounds the archive records a listing returns: one a
	// month is a century of them.
	LedgerArchivesMax = 1200
)

// LedgerArchive is the record of one archive of the ledger: every entry
// with Seq <= CutSeq (all created before Before) written to a file whose
// SHA256 is recorded before any entry is deleted, then each position's
// entries replaced by one checkpoint. FinishedAt is zero until every
// position is replaced.
type LedgerArchive struct {
	Before     time.Time `json:"before"`
	CutSeq     int64     `json:"cut_seq"`
	Path       string    `json:"path"`
	SHA256     string    `json:"sha256,omitempty"`
	Entries    int64     `json:"entries"`
	Positions  int64     `json:"positions"`
	StartedAt  time.Time `json:"started_at"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
}

// Sealed reports whether the archive's file is written and recorded:
// from then on its entries may be deleted, and its file never rewritten.
func (a LedgerArchive) Sealed() bool { return a.SHA256 != "" }

// Finished reports whether every position of the archive holds its
// checkpoint.
func (a LedgerArchive) Finished() bool { return !a.FinishedAt.IsZero() }

// CheckpointBusinessID is the business id of the checkpoints of the
// archive cut at before: unique per position and cut, as the ledger's
// UNIQUE (business_type, business_id, position) wants.
func CheckpointBusinessID(before time.Time) string {
	return "archive:" + before.UTC().Format(DateLayout)
}

// MonthStart reports whether t is the first instant of a month in UTC.
func MonthStart(t time.Time) bool {
	t = t.UTC()
	return t.Day() == 1 && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
}

// Checkpoint is the entry that replaces a position's archived entries,
// last being the last of them.
func Checkpoint(before time.Time, last LedgerEntry) LedgerEntry {
	return LedgerEntry{
		Seq: last.Seq, BusinessType: BusinessCheckpoint, BusinessID: CheckpointBusinessID(before),
		Position: last.Position, Delta: last.After, After: last.After, CreatedAt: before.UTC(),
	}
}

// LedgerCursor is how far one consumer of the ledger has read it: the
// relay, a webhook endpoint, a reconciliation pass, the alert worker.
type LedgerCursor struct {
	// Consumer names it: relay:NAME, webhook:ID, reconcile:PASS, alert.
	Consumer string `json:"consumer"`
	Seq      int64  `json:"seq"`
}

func (c LedgerCursor) String() string { return fmt.Sprintf("%s at %d", c.Consumer, c.Seq) }
