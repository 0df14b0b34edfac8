package stockd

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// Reconciliation passes. Each checks the books from its own angle and
// records what it finds; none changes stock.
const (
	PassMinute = "minute" // positions changed since the last minute pass
	PassHour   = "hour"   // reservations and approvals left behind
	PassDay    = "day"    // the full verify
	PassCount  = "count"  // physical counts against the ledger
)

// Passes lists every pass, in the order of their schedules.
var Passes = []string{PassMinute, PassHour, PassDay, PassCount}

// Discrepancy kinds: a fixed list, so that the metric of open findings by
// kind has a bounded label set. The position kinds carry the name of the
// audit check that finds them (audit.Difference.Check).
const (
	DiscrepancyLedgerChain     = "ledger_chain"     // an entry's counters are not the previous entry's plus its delta
	DiscrepancyLedgerSum       = "ledger_sum"       // the snapshot differs from the ledger's sum
	DiscrepancyLedgerLast      = "ledger_last"      // the snapshot differs from the last entry's counters
	DiscrepancyNegative        = "negative"         // a counter or available below zero
	DiscrepancyReservations    = "reservations"     // reserved or committed differ from the open reservations
	DiscrepancyInbound         = "inbound"          // in_transit or incoming differ from transfers and orders
	DiscrepancyMissingPosition = "missing_position" // the ledger names a position the snapshot lacks
	DiscrepancyDuplicateEvent  = "duplicate_event"  // one business event booked twice at a position
	DiscrepancyOverdueHold     = "overdue_hold"     // pending past its deadline plus the grace
	DiscrepancyUnshipped       = "unshipped"        // confirmed and not shipped for too long
	DiscrepancyOverdueApproval = "overdue_approval" // an approval pending past its expiry
	DiscrepancyCount           = "count_mismatch"   // a physical count differs from on_hand as of its time
	DiscrepancyRelayLag        = "relay_lag"        // the NATS relay or an enabled webhook is too far behind the ledger
)

// DiscrepancyKinds lists every kind.
var DiscrepancyKinds = []string{
	DiscrepancyLedgerChain, DiscrepancyLedgerSum, DiscrepancyLedgerLast, DiscrepancyNegative,
	DiscrepancyReservations, DiscrepancyInbound, DiscrepancyMissingPosition, DiscrepancyDuplicateEvent,
	DiscrepancyOverdueHold, DiscrepancyUnshipped, DiscrepancyOverdueApproval, DiscrepancyCount,
	DiscrepancyRelayLag,
}

// Discrepancy statuses. A discrepancy closes only when a later pass that
// checks its kind at its position no longer sees it.
const (
	DiscrepancyOpen   = "open"
	DiscrepancyClosed = "closed"
)

// BusinessReconciliation is the ledger entry of an adjustment that names a
// discrepancy. The audit and the minute pass take its counters as the
// position's opening balance: the entry is the visible, named (and, when
// large, approved) acknowledgement of a drift the ledger did not book, so
// the chain of deltas restarts there instead of carrying the drift forever.
const BusinessReconciliation = "reconciliation"

// Limits of reconciliation.
const (
	// ReconcileEntriesPerBatchMax bounds the ledger entries one minute-pass
	// batch reads, and so the positions it checks in one snapshot.
	ReconcileEntriesPerBatchMax = 1000
	// ReconcileFindingsPerRunMax bounds the findings one run records; a run
	// that finds more records the first ones and counts the rest.
	ReconcileFindingsPerRunMax = 1000
	// DiscrepancyEvidenceLengthMax bounds a discrepancy's evidence text.
	DiscrepancyEvidenceLengthMax = 500
)

// Finding is what one pass saw: a kind at a position (empty for findings
// about a reservation or an approval), about a subject (a ledger seq, a
// reservation or approval id, a count) that tells two findings of one kind
// at one position apart.
type Finding struct {
	Kind     string      `json:"kind"`
	Position PositionKey `json:"position"`
	Subject  string      `json:"subject,omitempty"`
	Expected Counters    `json:"expected"`
	Actual   Counters    `json:"actual"`
	Evidence string      `json:"evidence"`
}

// Discrepancy is a finding as recorded: first and last seen by which runs,
// and closed by the run that no longer saw it.
type Discrepancy struct {
	ID int64 `json:"id"`
	Finding
	Status      string     `json:"status"`
	FirstSeen   time.Time  `json:"first_seen"`
	LastSeen    time.Time  `json:"last_seen"`
	FirstRun    int64      `json:"first_run"`
	LastRun     int64      `json:"last_run"`
	ClosedAt    *time.Time `json:"closed_at,omitempty"`
	ClosedByRun int64      `json:"closed_by_run,omitempty"`
}

// ReconcileRun is one pass's record.
type ReconcileRun struct {
	ID               int64     `json:"id"`
	Pass             string    `json:"pass"`
	StartedAt        time.Time `json:"started_at"`
	FinishedAt       time.Time `json:"finished_at"`
	CursorFrom       int64     `json:"cursor_from"`
	CursorTo         int64     `json:"cursor_to"`
	PositionsChecked int       `json:"positions_checked"`
	Findings         int       `json:"findings"`
	Opened           int       `json:"opened"`
	Closed           int       `json:"closed"`
}

// DocDiscrepancy is the kind under which a batch holds a discrepancy it
// locked (Touches.Discrepancies). A discrepancy is a row of its own table
// that the reconciliation alone writes; the batch keeps it beside its
// documents, read-only, for a correction to decide against.
const DocDiscrepancy = "discrepancy"

// holdDiscrepancy keeps d, locked, in s.
func holdDiscrepancy(s *BatchState, d Discrepancy) {
	body, err := json.Marshal(d)
	if err != nil {
		panic(fmt.Sprintf("stockd: discrepancy %d not encodable: %v", d.ID, err))
	}
	k := DocKey{Kind: DocDiscrepancy, ID: strconv.FormatInt(d.ID, 10)}
	s.Docs[k] = &Document{DocKey: k, Body: body}
}

// discrepancyGet returns the discrepancy id and whether the batch locked
// one of that id.
func (s *BatchState) discrepancyGet(id int64) (Discrepancy, bool) {
	var d Discrepancy
	ok := s.docGet(DocDiscrepancy, strconv.FormatInt(id, 10), &d)
	return d, ok
}
