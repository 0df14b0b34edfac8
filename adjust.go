package stockd

import (
	"fmt"
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
}

var adjustReasons = map[string]bool{
	ReasonCycleCount: true, ReasonDamage: true, ReasonLoss: true, ReasonFound: true, ReasonCorrection: true,
}

func (a *Adjust) Kind() CommandKind { return KindAdjust }

func (a *Adjust) Touches(t *Touches) {
	t.Ensure = append(t.Ensure, a.Position)
	t.SKUs = append(t.SKUs, a.Position.SKU)
	poolDocTouches(a.Position, t)
}

func (a *Adjust) normalize() *Error {
	if err := NormalizeKey(&a.Position); err != nil {
		return err
	}
	if !adjustReasons[a.Reason] {
		return InvalidField("reason", "must be one of cycle_count, damage, loss, found, correction")
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

// adjust applies an adjustment within its SKU's approval threshold, and
// turns one beyond it into a pending approval that changes nothing yet.
// An adjustment that could not apply now is refused at once rather than
// left waiting for an approver.
func (a *Adjust) decide(s *BatchState, c *Command) Result {
	delta, err := s.adjustDelta(a, true)
	if err != nil {
		return Result{Err: err}
	}
	if absQuantity(delta) > s.SKUs[a.Position.SKU].Threshold() {
		return s.requestApproval(c, a, delta)
	}
	return s.applyAdjust(a, delta, LedgerEntry{
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

// adjustDelta checks a against the locked position and returns the change
// of on_hand it makes. checkPool checks the pool stock may come into; an
// approval's was checked when it was requested, and its batch has not
// locked the pool's document (campaignStockIn says why that still holds).
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

// applyAdjust changes on_hand by delta, already checked by adjustDelta.
func (s *BatchState) applyAdjust(a *Adjust, delta int64, entry LedgerEntry) Result {
	if delta != 0 {
		s.change(a.Position, Counters{OnHand: delta}, entry)
	}
	return Result{Position: s.position(a.Position)}
}

func absQuantity(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}
