package httpapi

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// poolRoutes serves pools, allocations, campaigns, location and SKU
// settings, and adjustment approvals.
func (s *Server) poolRoutes() []route {
	return []route{
		{"POST /v1/pools", "pool_create", stockd.ScopeAdmin, s.createPool},
		{"GET /v1/pools", "pool_list", stockd.ScopeRead, s.listPools},
		{"GET /v1/pools/{pool}", "pool_get", stockd.ScopeRead, s.getPool},
		{"POST /v1/allocations", "allocation_create", stockd.ScopeAdmin, s.createAllocation},
		{"POST /v1/campaigns/{pool}/close", "campaign_close", stockd.ScopeAdmin, s.closeCampaign},
		{"PATCH /v1/locations/{location}", "location_update", stockd.ScopeAdmin, s.updateLocation},
		{"PATCH /v1/skus/{sku}", "sku_update", stockd.ScopeAdmin, s.updateSKU},
		{"GET /v1/approvals", "approval_list", stockd.ScopeRead, s.listApprovals},
		{"GET /v1/approvals/{id}", "approval_get", stockd.ScopeRead, s.getApproval},
		{"POST /v1/approvals/{id}/approve", "approval_approve", stockd.ScopeApprove, s.decideApproval(false)},
		{"POST /v1/approvals/{id}/reject", "approval_reject", stockd.ScopeApprove, s.decideApproval(true)},
	}
}

// Pool is a pool other than normal: a channel's slice of stock, or a
// campaign's, sellable inside its window until it closes.
type Pool struct {
	Pool             string     `json:"pool"`
	Kind             string     `json:"kind"`
	Name             string     `json:"name,omitempty"`
	FallbackToNormal bool       `json:"fallback_to_normal,omitempty"`
	StartsAt         *time.Time `json:"starts_at,omitempty"`
	EndsAt           *time.Time `json:"ends_at,omitempty"`
	ClosedAt         *time.Time `json:"closed_at,omitempty"`
	CreatedAt        time.Time  `json:"created_at"`
}

// PoolList is a page of pools in name order.
type PoolList struct {
	Pools []Pool `json:"pools"`
	// NextAfter is the cursor of the next page; empty after the last.
	NextAfter string `json:"next_after,omitempty"`
}

// Allocation is the answer of POST /v1/allocations.
type Allocation struct {
	SKU       string   `json:"sku"`
	Location  string   `json:"location"`
	FromPool  string   `json:"from_pool"`
	ToPool    string   `json:"to_pool"`
	Quantity  int64    `json:"quantity"`
	Reference string   `json:"reference,omitempty"`
	From      Position `json:"from"`
	To        Position `json:"to"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
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
}

// ApprovalList is a page of approvals in id order.
type ApprovalList struct {
	Approvals []Approval `json:"approvals"`
	// NextAfter is the cursor of the next page; empty after the last.
	NextAfter string `json:"next_after,omitempty"`
}

type poolRequest struct {
	Pool             string     `json:"pool"`
	Kind             string     `json:"kind"`
	Name             string     `json:"name,omitempty"`
	FallbackToNormal bool       `json:"fallback_to_normal,omitempty"`
	StartsAt         *time.Time `json:"starts_at,omitempty"`
	EndsAt           *time.Time `json:"ends_at,omitempty"`
}

type allocationRequest struct {
	SKU      string `json:"sku"`
	Location string `json:"location,omitempty"`
	// FromPool defaults to normal.
	FromPool  string `json:"from_pool,omitempty"`
	ToPool    string `json:"to_pool"`
	Quantity  *int64 `json:"quantity"`
	Reference string `json:"reference,omitempty"`
}

type locationUpdateRequest struct {
	Name     *string `json:"name,omitempty"`
	Priority *int64  `json:"priority,omitempty"`
	Active   *bool   `json:"active,omitempty"`
}

type skuUpdateRequest struct {
	Name              *string `json:"name,omitempty"`
	Deduction         *string `json:"deduction,omitempty"`
	ApprovalThreshold *int64  `json:"approval_threshold,omitempty"`
}

func (s *Server) createPool(w http.ResponseWriter, r *http.Request) {
	var req poolRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			op := &stockd.PoolCreate{Pool: stockd.Pool{
				ID: req.Pool, Kind: req.Kind, Name: req.Name, FallbackToNormal: req.FallbackToNormal,
				StartsAt: req.StartsAt, EndsAt: req.EndsAt,
			}}
			return stockd.Command{Op: op}, nil
		},
		answer: objectAnswer[Pool],
	})
}

func (s *Server) createAllocation(w http.ResponseWriter, r *http.Request) {
	var req allocationRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			if req.Quantity == nil {
				return stockd.Command{}, stockd.InvalidField("quantity", "is required")
			}
			op := &stockd.Allocate{SKU: req.SKU, Location: req.Location, FromPool: req.FromPool, ToPool: req.ToPool, Quantity: *req.Quantity, Reference: req.Reference}
			return stockd.Command{Op: op}, nil
		},
		answer: objectOut(func(a stockd.Allocation) Allocation {
			return Allocation{
				SKU: a.SKU, Location: a.Location, FromPool: a.FromPool, ToPool: a.ToPool, Quantity: a.Quantity,
				Reference: a.Reference, From: positionOut(a.From), To: positionOut(a.To),
			}
		}),
	})
}

func (s *Server) closeCampaign(w http.ResponseWriter, r *http.Request) {
	s.mutateResource(w, r, "pool", func(pool string) stockd.Operation {
		return &stockd.CampaignClose{Pool: pool}
	}, objectAnswer[Pool])
}

func (s *Server) updateLocation(w http.ResponseWriter, r *http.Request) {
	var req locationUpdateRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, verr := pathIdentifier(r, "location")
			if verr != nil {
				return stockd.Command{}, verr
			}
			op := &stockd.LocationUpdate{ID: id, Name: req.Name, Active: req.Active}
			if req.Priority != nil {
				if *req.Priority < 0 || *req.Priority > stockd.LocationPriorityMax {
					return stockd.Command{}, stockd.InvalidField("priority", "must be from 0 to %d", stockd.LocationPriorityMax)
				}
				priority := int(*req.Priority)
				op.Priority = &priority
			}
			return stockd.Command{Op: op}, nil
		},
		answer: func(res stockd.Result) any { return locationOut(*res.Location) },
	})
}

func (s *Server) updateSKU(w http.ResponseWriter, r *http.Request) {
	var req skuUpdateRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, verr := pathIdentifier(r, "sku")
			if verr != nil {
				return stockd.Command{}, verr
			}
			op := &stockd.SKUUpdate{ID: id, Name: req.Name, Deduction: req.Deduction, ApprovalThreshold: req.ApprovalThreshold}
			return stockd.Command{Op: op}, nil
		},
		answer: func(res stockd.Result) any { return skuOut(*res.SKU) },
	})
}

func (s *Server) decideApproval(reject bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s.mutateResource(w, r, "id", func(id string) stockd.Operation {
			return &stockd.ApprovalDecision{ID: id, Reject: reject}
		}, objectAnswer[Approval])
	}
}

func (s *Server) getPool(w http.ResponseWriter, r *http.Request) {
	getDocument[Pool](s, w, r, stockd.DocPool, "pool")
}

func (s *Server) getApproval(w http.ResponseWriter, r *http.Request) {
	getDocument[Approval](s, w, r, stockd.DocApproval, "id")
}

// getDocument answers the document of kind named by the path value name,
// rendered as T.
func getDocument[T any](s *Server, w http.ResponseWriter, r *http.Request, kind, name string) {
	var v T
	if s.answerDocument(w, r, name, kind, kind, &v) {
		writeJSON(w, http.StatusOK, v)
	}
}

func (s *Server) listPools(w http.ResponseWriter, r *http.Request) {
	p, verr := documentPage(r.URL.Query(), stockd.DocPool)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	pools, next, err := listDocuments[Pool](s, r, p, nil)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, PoolList{Pools: pools, NextAfter: next})
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

// documentPage reads the cursor (after: an id) and the page size (limit,
// default stockd.PageSizeDefault, at most stockd.PageSizeMax).
func documentPage(q url.Values, kind string) (store.DocumentListParams, *stockd.Error) {
	p := store.DocumentListParams{Kind: kind, Limit: stockd.PageSizeDefault}
	if q.Has("after") {
		p.After = q.Get("after")
		if !stockd.ValidIdentifier(p.After) {
			return p, stockd.InvalidField("after", "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax)
		}
	}
	if q.Has("limit") {
		limit, err := strconv.ParseInt(q.Get("limit"), 10, 64)
		if err != nil || limit < 1 || limit > stockd.PageSizeMax {
			return p, stockd.InvalidField("limit", "must be an integer from 1 to %d", stockd.PageSizeMax)
		}
		p.Limit = int(limit)
	}
	return p, nil
}

// listDocuments reads one page of documents as T, keeping those keep
// accepts (all when nil), and returns the next cursor when the page was
// full.
func listDocuments[T any](s *Server, r *http.Request, p store.DocumentListParams, keep func(T) bool) ([]T, string, error) {
	docs, err := s.store.DocumentList(r.Context(), p)
	if err != nil {
		return nil, "", err
	}
	out := make([]T, 0, len(docs))
	for _, d := range docs {
		var v T
		if err := json.Unmarshal(d.Body, &v); err != nil {
			return nil, "", err
		}
		if keep == nil || keep(v) {
			out = append(out, v)
		}
	}
	next := ""
	if len(docs) == p.Limit {
		next = docs[len(docs)-1].ID
	}
	return out, next, nil
}
