package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) approvalRoutes() []route {
	return []route{
		{"GET /v1/approvals", "approval_list", stockd.ScopeRead, s.listApprovals},
		{"GET /v1/approvals/{id}", "approval_get", stockd.ScopeRead, s.getApproval},
		{"POST /v1/approvals/{id}/approve", "approval_approve", stockd.ScopeApprove, s.decideApproval(false)},
		{"POST /v1/approvals/{id}/reject", "approval_reject", stockd.ScopeApprove, s.decideApproval(true)},
	}
}

// Approval is an adjustment beyond its SKU's threshold, waiting for (or
// decided by) a key other than the requester's.
type Approval struct {
	ID           string             `json:"id"`
	Status       string             `json:"status"`
	Adjustment   ApprovalAdjustment `json:"adjustment"`
	OnHandChange int64              `json:"on_hand_change"`
	RequestedBy  string             `json:"requested_by"`
	RequestedAt  time.Time          `json:"requested_at"`
	ExpiresAt    time.Time          `json:"expires_at"`
	DecidedBy    string             `json:"decided_by,omitempty"`
	DecidedAt    *time.Time         `json:"decided_at,omitempty"`
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
	// DiscrepancyID names the discrepancy the adjustment resolves.
	DiscrepancyID int64 `json:"discrepancy_id,omitempty"`
	// Counter is the counter the adjustment changes: on_hand, or the one a
	// correction corrects.
	Counter string `json:"counter,omitempty"`
	// Basis is a correction's justification.
	Basis string `json:"basis,omitempty"`
}

// ApprovalList is a page of approvals in id order.
type ApprovalList struct {
	Approvals []Approval `json:"approvals"`
	// NextAfter is the cursor of the next page; empty after the last.
	NextAfter string `json:"next_after,omitempty"`
}

func (s *Server) decideApproval(reject bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mutateResource(w, r, "id", func(id string) stockd.Operation {
			return &stockd.ApprovalDecision{ID: id, Reject: reject}
		}, objectAnswer[Approval])
	}
}

func (s *Server) getApproval(w http.ResponseWriter, r *http.Request) {
	getDocument[Approval](s, w, r, stockd.DocApproval, "id")
}

// listApprovals pages through approvals by id; status filters within each
// page, so a page may hold fewer than limit and still have a next one.
func (s *Server) listApprovals(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, verr := documentPage(q, stockd.DocApproval)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	status := q.Get("status")
	switch status {
	case "", stockd.ApprovalPending, stockd.ApprovalApproved, stockd.ApprovalRejected, stockd.ApprovalExpired:
	default:
		writeProblem(w, stockd.InvalidField("status", "must be one of pending, approved, rejected, expired"))
		return
	}
	approvals, next, err := listDocuments(s, r, p, func(a Approval) bool { return status == "" || a.Status == status })
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, ApprovalList{Approvals: approvals, NextAfter: next})
}
