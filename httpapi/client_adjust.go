package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
)

// AdjustParams are the arguments of Client.Adjust: on_hand changes by
// Delta, or, when Set is true, becomes SetOnHand provided it still is
// ExpectedOnHand (else stale_quantity).
type AdjustParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	Pool           string
	Reason         string
	Delta          int64
	Set            bool
	SetOnHand      int64
	ExpectedOnHand int64
	Reference      string
	// DiscrepancyID names the discrepancy the adjustment resolves.
	DiscrepancyID int64
	// Counter is the counter to correct: empty for on_hand, or reserved,
	// committed, quarantined, in_transit or incoming for a correction (a
	// Delta with reason correction, a DiscrepancyID and a Basis), which
	// always returns a *PendingApprovalError.
	Counter string
	Basis   string
}

// ErrPendingApproval is what a *PendingApprovalError unwraps to.
var ErrPendingApproval = errors.New("adjustment pending approval")

// PendingApprovalError is the error of Client.Adjust when the server
// accepted the adjustment (202) but holds it for a key other than the
// requester's to approve: nothing changed yet. An error rather than a
// result, so that a caller that knows nothing of approvals never takes
// the empty position for the stock after the change. It is no
// *stockd.Error (the server refused nothing), so test for it with
// errors.As or errors.Is before stockd.ErrorCode, which would call it
// internal. Retrying with the same idempotency key answers the same
// approval; a new key would ask for a second one.
type PendingApprovalError struct {
	Approval Approval
}

func (e *PendingApprovalError) Error() string {
	return fmt.Sprintf("adjustment of %s at %s/%s waits for approval %s", e.Approval.Adjustment.SKU,
		e.Approval.Adjustment.Location, e.Approval.Adjustment.Pool, e.Approval.ID)
}

func (e *PendingApprovalError) Unwrap() error { return ErrPendingApproval }

// adjustAnswer is the answer of POST /v1/adjustments: a position (200), or
// the pending approval (202). The client's calls see bodies, not statuses,
// so the approval is told by the field only it has.
type adjustAnswer struct {
	position Position
	approval *Approval
}

func (a *adjustAnswer) UnmarshalJSON(b []byte) error {
	var probe struct {
		Adjustment json.RawMessage `json:"adjustment"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if probe.Adjustment != nil {
		a.approval = &Approval{}
		return json.Unmarshal(b, a.approval)
	}
	return json.Unmarshal(b, &a.position)
}

// Adjust corrects on_hand and returns the position after. An adjustment
// beyond the SKU's approval threshold changes nothing yet: Adjust then
// returns a *PendingApprovalError (errors.Is ErrPendingApproval) holding
// the approval to wait for.
func (c *Client) Adjust(ctx context.Context, p AdjustParams) (Position, error) {
	req := adjustmentRequest{SKU: p.SKU, Location: p.Location, Pool: p.Pool, Reason: p.Reason, Reference: p.Reference,
		DiscrepancyID: p.DiscrepancyID, Counter: p.Counter, Basis: p.Basis}
	if p.Set {
		req.SetOnHand, req.ExpectedOnHand = &p.SetOnHand, &p.ExpectedOnHand
	} else {
		req.Delta = &p.Delta
	}
	var out adjustAnswer
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/adjustments", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out,
	})
	if err != nil {
		return Position{}, err
	}
	if out.approval != nil {
		return Position{}, &PendingApprovalError{Approval: *out.approval}
	}
	out.position.Replayed = replayed
	return out.position, nil
}
