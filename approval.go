package stockd

import (
	"encoding/json"
	"fmt"
	"time"
)

const (
	KindApprove CommandKind = "approve"
	KindReject  CommandKind = "reject"
)

// ApprovalTTL is how long a pending approval waits for a decision; past
// it, approving or rejecting marks it expired and is refused.
const ApprovalTTL = 72 * time.Hour

// Approval statuses:
//
//	pending --approve--> approved
//	pending --reject---> rejected
//	pending --(a decision after ExpiresAt)--> expired
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalRejected = "rejected"
	ApprovalExpired  = "expired"
)

// Approval is the document (DocApproval, id = a new id) of an adjustment
// beyond its SKU's threshold, or of a correction of a counter other than
// on_hand, waiting for a key other than the requester's.
type Approval struct {
	ID         string             `json:"id"`
	Status     string             `json:"status"`
	Adjustment ApprovalAdjustment `json:"adjustment"`
	// OnHandChange is the change of on_hand the adjustment made when it was
	// requested; a set_on_hand adjustment may make another when approved,
	// or be refused as stale.
	OnHandChange int64  `json:"on_hand_change"`
	RequestedBy  string `json:"requested_by"`
	// RequestedByKey is the API key that asked; empty on a server running
	// open, where the actor is all there is to compare.
	RequestedByKey string     `json:"requested_by_key,omitempty"`
	RequestedAt    time.Time  `json:"requested_at"`
	ExpiresAt      time.Time  `json:"expires_at"`
	DecidedBy      string     `json:"decided_by,omitempty"`
	DecidedAt      *time.Time `json:"decided_at,omitempty"`
}

// ApprovalAdjustment is the adjustment an approval applies, as requested.
type ApprovalAdjustment struct {
	SKU            string `json:"sku"`
	Location       string `json:"location"`
	Pool           string `json:"pool"`
	Reason         string `json:"reason"`
	Delta          *int64 `json:"delta,omitempty"`
	SetOnHand      *int64 `json:"set_on_hand,omitempty"`
	ExpectedOnHand *int64 `json:"expected_on_hand,omitempty"`
	Reference      string `json:"reference,omitempty"`
	DiscrepancyID  int64  `json:"discrepancy_id,omitempty"`
	// Counter is the counter the adjustment changes; empty on approvals
	// stored before corrections of other counters, which changed on_hand.
	Counter string `json:"counter,omitempty"`
	// Basis is a correction's justification.
	Basis string `json:"basis,omitempty"`
}

// Change is the change of counters the adjustment asks for; a set_on_hand
// adjustment's is its change when it was requested.
func (ap Approval) Change() Counters {
	if a := ap.Adjustment; a.Counter != "" && a.Counter != CounterOnHand && a.Delta != nil {
		return CounterDelta(a.Counter, *a.Delta)
	}
	return Counters{OnHand: ap.OnHandChange}
}

func approvalAdjustmentOf(a *Adjust) ApprovalAdjustment {
	out := ApprovalAdjustment{SKU: a.Position.SKU, Location: a.Position.Location, Pool: a.Position.Pool, Reason: a.Reason, Reference: a.Reference,
		DiscrepancyID: a.DiscrepancyID, Counter: a.Counter, Basis: a.Basis}
	if a.Set {
		set, expected := a.SetOnHand, a.ExpectedOnHand
		out.SetOnHand, out.ExpectedOnHand = &set, &expected
	} else {
		delta := a.Delta
		out.Delta = &delta
		if a.Expect {
			expected := a.ExpectedOnHand
			out.ExpectedOnHand = &expected
		}
	}
	return out
}

// adjust returns the adjustment the approval applies.
func (a ApprovalAdjustment) adjust() *Adjust {
	out := &Adjust{Position: PositionKey{SKU: a.SKU, Location: a.Location, Pool: a.Pool}, Reason: a.Reason, Reference: a.Reference,
		DiscrepancyID: a.DiscrepancyID, Counter: a.Counter, Basis: a.Basis}
	if out.Counter == "" {
		out.Counter = CounterOnHand
	}
	if a.SetOnHand != nil && a.ExpectedOnHand != nil {
		out.Set, out.SetOnHand, out.ExpectedOnHand = true, *a.SetOnHand, *a.ExpectedOnHand
	} else if a.Delta != nil {
		out.Delta = *a.Delta
		if a.ExpectedOnHand != nil {
			out.Expect, out.ExpectedOnHand = true, *a.ExpectedOnHand
		}
	}
	return out
}

// requestApproval records adjustment a of c, whose on_hand change is delta,
// as pending; nothing changes until another key approves it.
func (s *BatchState) requestApproval(c *Command, a *Adjust, delta int64) Result {
	ap := Approval{
		ID:             s.NewID(),
		Status:         ApprovalPending,
		Adjustment:     approvalAdjustmentOf(a),
		OnHandChange:   delta,
		RequestedBy:    c.Actor,
		RequestedByKey: c.KeyID,
		RequestedAt:    s.Now,
		ExpiresAt:      s.Now.Add(ApprovalTTL),
	}
	s.docPut(DocApproval, ap.ID, ap)
	return Result{Pending: true, Object: objectOf(ap)}
}

// ApprovalDecision approves or rejects a pending approval. Each is
// conditional on the approval's status, so a repeat under a new key
// answers the decided approval and changes nothing.
type ApprovalDecision struct {
	ID     string
	Reject bool
}

func (d *ApprovalDecision) Kind() CommandKind {
	if d.Reject {
		return KindReject
	}
	return KindApprove
}

// Touches names the approval; its position follows from the document
// (approvalTouches, through DocumentTouches), which Touches cannot know.
func (d *ApprovalDecision) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocApproval, ID: d.ID})
}

func (d *ApprovalDecision) normalize() *Error {
	return validText("id", d.ID, IdentifierLengthMax, true)
}

func (d *ApprovalDecision) decide(s *BatchState, c *Command) Result {
	var ap Approval
	if !s.docGet(DocApproval, d.ID, &ap) {
		return Result{Err: Errorf(CodeNotFound, "approval %q not found", d.ID)}
	}
	if ap.Status == ApprovalPending && !s.Now.Before(ap.ExpiresAt) {
		// Recorded even though the decision is refused: the expiry is a
		// fact of the approval's history.
		s.decideApproval(&ap, ApprovalExpired, "")
	}
	if d.Reject {
		switch ap.Status {
		case ApprovalPending:
			s.decideApproval(&ap, ApprovalRejected, c.Actor)
			return Result{Object: objectOf(ap)}
		case ApprovalRejected:
			return Result{Object: objectOf(ap)}
		}
		return Result{Err: Errorf(CodeInvalidTransition, "approval %q is %s: only a pending one can be rejected", ap.ID, ap.Status)}
	}
	// Checked first, whatever the status: the requester never approves.
	// The key decides, not the actor a caller may name: one key approving
	// its own request under another X-Actor is still the requester.
	if c.Actor == ap.RequestedBy || (c.KeyID != "" && c.KeyID == ap.RequestedByKey) {
		return Result{Err: Errorf(CodeSelfApproval, "an adjustment needs the approval of a key other than its requester's")}
	}
	switch ap.Status {
	case ApprovalPending:
	case ApprovalApproved:
		return Result{Object: objectOf(ap)}
	default:
		return Result{Err: Errorf(CodeInvalidTransition, "approval %q is %s: only a pending one can be approved", ap.ID, ap.Status)}
	}
	a := ap.Adjustment.adjust()
	change, err := s.adjustChange(a, false)
	if err != nil {
		// The stock moved since the request: it stays pending, for a later
		// approval once the stock allows it, or a rejection.
		return Result{Err: err}
	}
	if a.correction() {
		// Checked by adjustChange: the claim cannot be taken already.
		if err := s.claimReferences([]ReferenceKey{correctionClaim(a)}, ap.ID); err != nil {
			return Result{Err: err}
		}
	}
	s.applyAdjust(a, change, LedgerEntry{
		BusinessType: a.businessType(), BusinessID: ap.ID,
		Actor: ap.RequestedBy, Approver: c.Actor, Reason: a.Reason, Reference: a.reference(),
	})
	ap.OnHandChange = change.OnHand
	s.decideApproval(&ap, ApprovalApproved, c.Actor)
	return Result{Object: objectOf(ap)}
}

func (s *BatchState) decideApproval(ap *Approval, status, by string) {
	now := s.Now
	ap.Status, ap.DecidedBy, ap.DecidedAt = status, by, &now
	s.docPut(DocApproval, ap.ID, *ap)
}

// approvalTouches adds the position an approval's adjustment changes, and
// the discrepancy and claim a correction decides against.
func approvalTouches(d *Document, t *Touches) {
	var ap Approval
	if err := json.Unmarshal(d.Body, &ap); err != nil {
		panic(fmt.Sprintf("stockd: document %s/%s not decodable: %v", d.Kind, d.ID, err))
	}
	k := PositionKey{SKU: ap.Adjustment.SKU, Location: ap.Adjustment.Location, Pool: ap.Adjustment.Pool}
	t.SKUs = append(t.SKUs, k.SKU)
	t.Ensure = append(t.Ensure, k)
	correctionTouches(ap.Adjustment.adjust(), t)
}
