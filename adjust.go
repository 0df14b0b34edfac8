package stockd

import (
	"fmt"
	"slices"
	"strings"
)

const KindAdjust CommandKind = "adjust"

// Adjust changes on_hand by Delta, or, when Set is true, sets it to SetOnHand
// provided it still equals ExpectedOnHand (compare-and-set for cycle counts).
// A delta with Expect set is conditional the same way: it applies only if
// on_hand still equals ExpectedOnHand, so that two clerks booking the same
// found units do not both add them.
type Adjust struct {
	Position       PositionKey
	Reason         string
	Delta          int64
	Set            bool
	SetOnHand      int64
	Expect         bool
	ExpectedOnHand int64
	Reference      string
	// DiscrepancyID, when set, names the discrepancy this adjustment
	// resolves: its ledger entry is a reconciliation (see
	// BusinessReconciliation) and its reference names the discrepancy.
	// The approval rule applies as to any adjustment.
	DiscrepancyID int64
	// Counter is the counter the adjustment changes: CounterOnHand (the
	// default), or another one for a correction of drift (see
	// CorrectableCounters). A correction of another counter is a Delta
	// with ReasonCorrection, names its DiscrepancyID, says its Basis, and
	// always waits for a second key's approval.
	Counter string
	// Basis is a correction's free-text justification, kept by its
	// approval.
	Basis string
}

// Counters an adjustment can change, by their JSON names.
const (
	CounterOnHand      = "on_hand"
	CounterReserved    = "reserved"
	CounterCommitted   = "committed"
	CounterQuarantined = "quarantined"
	CounterInTransit   = "in_transit"
	CounterIncoming    = "incoming"
)

// CorrectableCounters lists every counter an adjustment may change, on_hand
// first.
var CorrectableCounters = []string{CounterOnHand, CounterReserved, CounterCommitted, CounterQuarantined, CounterInTransit, CounterIncoming}

// BasisLengthMax bounds a correction's basis.
const BasisLengthMax = 1000

// CounterDelta returns the change of delta units of the named counter.
// It panics on a name outside CorrectableCounters: callers normalize first.
func CounterDelta(counter string, delta int64) Counters {
	switch counter {
	case CounterOnHand, "":
		return Counters{OnHand: delta}
	case CounterReserved:
		return Counters{Reserved: delta}
	case CounterCommitted:
		return Counters{Committed: delta}
	case CounterQuarantined:
		return Counters{Quarantined: delta}
	case CounterInTransit:
		return Counters{InTransit: delta}
	case CounterIncoming:
		return Counters{Incoming: delta}
	}
	panic("stockd: not a counter: " + counter)
}

// counterOf returns the named counter of c.
func counterOf(c Counters, counter string) int64 {
	d := CounterDelta(counter, 1)
	return c.OnHand*d.OnHand + c.Reserved*d.Reserved + c.Committed*d.Committed +
		c.Quarantined*d.Quarantined + c.InTransit*d.InTransit + c.Incoming*d.Incoming
}

// correction reports whether a corrects a counter other than on_hand.
func (a *Adjust) correction() bool { return a.Counter != "" && a.Counter != CounterOnHand }

var adjustReasons = map[string]bool{
	ReasonCycleCount: true, ReasonDamage: true, ReasonLoss: true, ReasonFound: true, ReasonCorrection: true,
}

func (a *Adjust) Kind() CommandKind { return KindAdjust }

func (a *Adjust) Touches(t *Touches) {
	t.Ensure = append(t.Ensure, a.Position)
	t.SKUs = append(t.SKUs, a.Position.SKU)
	poolDocTouches(a.Position, t)
	t.References = append(t.References, referenceKeys(BusinessAdjustment, a.Reference, a.Position.SKU)...)
	correctionTouches(a, t)
}

// correctionKinds maps each counter a correction may change to the kind of
// discrepancy it answers: the one whose expectation is what the books'
// documents hold of that counter, so that restoring it can never leave the
// counter below what a later release, confirm, fulfil or receipt takes
// from it (that would break an invariant and halt the engine). The open
// reservations hold reserved and committed, the open transfers and
// purchase orders in_transit and incoming. No document holds quarantined
// (every move out of quarantine checks what is there), so its expectation
// is the ledger's last entry; one kind per counter, so that one drift is
// never answered by two discrepancies.
var correctionKinds = map[string]string{
	CounterReserved:    DiscrepancyReservations,
	CounterCommitted:   DiscrepancyReservations,
	CounterQuarantined: DiscrepancyLedgerLast,
	CounterInTransit:   DiscrepancyInbound,
	CounterIncoming:    DiscrepancyInbound,
}

// referenceCorrection is the business type of the reference an approved
// correction takes (correctionClaim).
const referenceCorrection = "correction"

// correctionClaim is the reference an approved correction takes: one per
// discrepancy, counter and position, so that the drift a discrepancy
// recorded is corrected once. Two approvals in one batch see the first's
// claim; in two batches, the lock on the discrepancy orders them, and the
// unique key of business references backs it.
func correctionClaim(a *Adjust) ReferenceKey {
	return ReferenceKey{BusinessType: referenceCorrection, SKU: a.Position.SKU,
		Reference: fmt.Sprintf("discrepancy:%d %s %s/%s", a.DiscrepancyID, a.Counter, a.Position.Location, a.Position.Pool)}
}

// correctionTouches adds what deciding correction a reads: its
// discrepancy, locked, and its claim.
func correctionTouches(a *Adjust, t *Touches) {
	if !a.correction() {
		return
	}
	t.Discrepancies = append(t.Discrepancies, a.DiscrepancyID)
	t.References = append(t.References, correctionClaim(a))
}

func (a *Adjust) normalize() *Error {
	if err := NormalizeKey(&a.Position); err != nil {
		return err
	}
	if !adjustReasons[a.Reason] {
		return InvalidField("reason", "must be one of cycle_count, damage, loss, found, correction")
	}
	if a.Counter == "" {
		a.Counter = CounterOnHand
	}
	if err := a.normalizeCorrection(); err != nil {
		return err
	}
	if a.Set {
		if a.SetOnHand < 0 || a.SetOnHand > QuantityMax {
			return InvalidField("set_on_hand", "must be an integer from 0 to %d", QuantityMax)
		}
		if a.ExpectedOnHand < 0 || a.ExpectedOnHand > CounterMax {
			return InvalidField("expected_on_hand", "must be a non-negative integer")
		}
	} else if a.Delta == 0 || a.Delta < -QuantityMax || a.Delta > QuantityMax {
		return InvalidField("delta", "must be a non-zero integer from -%d to %d", QuantityMax, QuantityMax)
	} else if a.Expect && (a.ExpectedOnHand < 0 || a.ExpectedOnHand > CounterMax) {
		return InvalidField("expected_on_hand", "must be a non-negative integer")
	}
	if a.DiscrepancyID < 0 {
		return InvalidField("discrepancy_id", "must be a positive integer")
	}
	if err := validText("reference", a.Reference, ReferenceLengthMax, false); err != nil {
		return err
	}
	if len(a.reference()) > ReferenceLengthMax {
		return InvalidField("reference", "with the discrepancy it names, must be at most %d bytes", ReferenceLengthMax)
	}
	return nil
}

// normalizeCorrection checks what a correction of a counter other than
// on_hand must carry: it is a plain delta (set_on_hand and
// expected_on_hand speak of on_hand only), named a correction, tied to the
// discrepancy it answers and justified by a basis.
func (a *Adjust) normalizeCorrection() *Error {
	if !slices.Contains(CorrectableCounters, a.Counter) {
		return InvalidField("counter", "must be one of %s", strings.Join(CorrectableCounters, ", "))
	}
	if !a.correction() {
		if a.Basis != "" {
			return InvalidField("basis", "belongs to a correction of a counter other than on_hand; say why in reference")
		}
		return nil
	}
	switch {
	case a.Set:
		return InvalidField("set_on_hand", "a correction of %s is a delta: set_on_hand sets on_hand only", a.Counter)
	case a.Expect:
		return InvalidField("expected_on_hand", "a correction of %s is not conditional on on_hand", a.Counter)
	case a.Reason != ReasonCorrection:
		return InvalidField("reason", "a correction of %s must give reason correction", a.Counter)
	case a.DiscrepancyID == 0:
		return InvalidField("discrepancy_id", "a correction of %s must name the discrepancy it answers", a.Counter)
	}
	return validText("basis", a.Basis, BasisLengthMax, true)
}

// adjust applies an adjustment within its SKU's approval threshold, and
// turns one beyond it into a pending approval that changes nothing yet.
// An adjustment that could not apply now is refused at once rather than
// left waiting for an approver.
func (a *Adjust) decide(s *BatchState, c *Command) Result {
	change, err := s.adjustChange(a, true)
	if err != nil {
		return Result{Err: err}
	}
	// An adjustment waiting for approval takes its reference when it is
	// requested: the reference names the document submitted, approved or
	// not.
	if err := s.claimReferences(referenceKeys(BusinessAdjustment, a.Reference, a.Position.SKU), c.IdempotencyKey); err != nil {
		return Result{Err: err}
	}
	// A correction of another counter always waits: it rewrites what the
	// ledger says orders and documents hold, which no threshold of on_hand
	// measures.
	if a.correction() || absQuantity(change.OnHand) > s.SKUs[a.Position.SKU].Threshold() {
		return s.requestApproval(c, a, change.OnHand)
	}
	return s.applyAdjust(a, change, LedgerEntry{
		BusinessType: a.businessType(), BusinessID: c.IdempotencyKey,
		Actor: c.Actor, Reason: a.Reason, Reference: a.reference(),
	})
}

// businessType is the ledger entry's type: a reconciliation when the
// adjustment names a discrepancy.
func (a *Adjust) businessType() string {
	if a.DiscrepancyID != 0 {
		return BusinessReconciliation
	}
	return BusinessAdjustment
}

// reference is the ledger entry's reference: the caller's, preceded by
// the discrepancy an adjustment resolves, so that the ledger names it.
func (a *Adjust) reference() string {
	if a.DiscrepancyID == 0 {
		return a.Reference
	}
	return strings.TrimSpace(fmt.Sprintf("discrepancy:%d %s", a.DiscrepancyID, a.Reference))
}

// adjustChange checks a against the locked position and returns the
// change of its counters it makes. checkPool checks the pool stock may come
// into; an approval's was checked when it was requested, and its batch has
// not locked the pool's document (campaignStockIn says why that still
// holds).
func (s *BatchState) adjustChange(a *Adjust, checkPool bool) (Counters, *Error) {
	if a.correction() {
		return s.correctionChange(a)
	}
	delta, err := s.adjustDelta(a, checkPool)
	return Counters{OnHand: delta}, err
}

// correctionChange checks a correction of a counter other than on_hand
// against its locked discrepancy (checkCorrectionBasis) and the locked
// position: no counter and not available may fall below zero, nor a
// counter rise above CounterMax.
func (s *BatchState) correctionChange(a *Adjust) (Counters, *Error) {
	if err := s.checkPosition(a.Position); err != nil {
		return Counters{}, err
	}
	if err := s.checkCorrectionBasis(a); err != nil {
		return Counters{}, err
	}
	cur := s.peek(a.Position)
	change := CounterDelta(a.Counter, a.Delta)
	after := cur.Add(change)
	if counterOf(after, a.Counter) > CounterMax {
		return Counters{}, InvalidField("delta", "%s would exceed %d", a.Counter, CounterMax)
	}
	if !after.Valid() {
		// What the correction could take at most: the counter itself when
		// it lowers one, available when it raises one that available
		// excludes.
		room := counterOf(cur, a.Counter)
		if a.Delta > 0 {
			room = cur.Available()
		}
		return Counters{}, &Error{
			Code:    CodeInsufficientStock,
			Message: fmt.Sprintf("the correction would leave %s or available below zero", a.Counter),
			Lines:   []Shortfall{{SKU: a.Position.SKU, Location: a.Position.Location, Pool: a.Position.Pool, Requested: absQuantity(a.Delta), Available: room}},
		}
	}
	return change, nil
}

// checkCorrectionBasis checks correction a against the discrepancy it
// names, locked: open, at a's position, of the kind that answers a's
// counter (correctionKinds), not corrected already (correctionClaim), and
// a's delta exactly the drift it recorded (expected minus actual). The
// drift is what the counter holds beyond what the documents hold, and only
// a correction changes it, so a counter that moved with its documents
// since the pass is still corrected to exactly what they hold; a pass that
// records another drift since the request leaves the approval refused
// stale_quantity until it is rejected.
func (s *BatchState) checkCorrectionBasis(a *Adjust) *Error {
	d, ok := s.discrepancyGet(a.DiscrepancyID)
	if !ok {
		return Errorf(CodeUnknownDiscrepancy, "discrepancy %d not found", a.DiscrepancyID)
	}
	if d.Status != DiscrepancyOpen {
		return Errorf(CodeDiscrepancyClosed, "discrepancy %d is closed: a later pass no longer saw it", d.ID)
	}
	if d.Position != a.Position {
		return &Error{Code: CodeUnprocessable, Field: "discrepancy_id",
			Message: fmt.Sprintf("discrepancy %d is at %s/%s/%s, not at the adjusted position", d.ID, d.Position.SKU, d.Position.Location, d.Position.Pool)}
	}
	if kind := correctionKinds[a.Counter]; d.Kind != kind {
		return &Error{Code: CodeUnprocessable, Field: "discrepancy_id",
			Message: fmt.Sprintf("a correction of %s answers a %s discrepancy; discrepancy %d is %s", a.Counter, kind, d.ID, d.Kind)}
	}
	expected, actual := counterOf(d.Expected, a.Counter), counterOf(d.Actual, a.Counter)
	if drift := expected - actual; a.Delta != drift {
		return Errorf(CodeStaleQuantity, "discrepancy %d records %s %d where %d is expected: its correction is a delta of %d, not %d",
			d.ID, a.Counter, actual, expected, drift, a.Delta)
	}
	if id, taken := s.References[correctionClaim(a)]; taken {
		return &Error{Code: CodeDuplicateReference, Field: "discrepancy_id", ExistingID: id,
			Message: fmt.Sprintf("the %s drift of discrepancy %d was corrected already, by approval %q", a.Counter, d.ID, id)}
	}
	return nil
}

// adjustDelta checks an adjustment of on_hand against the locked position
// and returns the change of on_hand it makes.
func (s *BatchState) adjustDelta(a *Adjust, checkPool bool) (int64, *Error) {
	if err := s.checkPosition(a.Position); err != nil {
		return 0, err
	}
	cur := s.peek(a.Position)
	delta := a.Delta
	if (a.Set || a.Expect) && cur.OnHand != a.ExpectedOnHand {
		return 0, Errorf(CodeStaleQuantity, "on_hand is %d, not the expected %d", cur.OnHand, a.ExpectedOnHand)
	}
	if a.Set {
		delta = a.SetOnHand - cur.OnHand
	}
	if delta > 0 {
		if err := s.stockIn(a.Position.SKU); err != nil {
			return 0, err
		}
		if checkPool {
			if err := s.campaignStockIn(a.Position); err != nil {
				return 0, err
			}
		}
	}
	after := cur.Add(Counters{OnHand: delta})
	if after.OnHand > CounterMax {
		return 0, InvalidField("delta", "on_hand would exceed %d", CounterMax)
	}
	if after.Available() < 0 || after.OnHand < 0 {
		return 0, &Error{
			Code:    CodeInsufficientStock,
			Message: "on_hand cannot go below what is reserved, committed and quarantined",
			Lines:   []Shortfall{{SKU: a.Position.SKU, Location: a.Position.Location, Pool: a.Position.Pool, Requested: -delta, Available: cur.Available()}},
		}
	}
	return delta, nil
}

// applyAdjust makes change, already checked by adjustChange.
func (s *BatchState) applyAdjust(a *Adjust, change Counters, entry LedgerEntry) Result {
	if change != (Counters{}) {
		s.change(a.Position, change, entry)
	}
	return Result{Position: s.position(a.Position)}
}

func absQuantity(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
