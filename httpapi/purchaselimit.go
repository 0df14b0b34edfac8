package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// purchaseLimitRoutes: setting and listing limits is the admin's business.
func (s *Server) purchaseLimitRoutes() []route {
	return []route{
		{"POST /v1/limits", "limit_set", stockd.ScopeAdmin, s.setLimit},
		{"GET /v1/limits", "limit_list", stockd.ScopeAdmin, s.listLimits},
	}
}

// PurchaseLimit caps what one customer orders within a window: of one SKU
// (scope sku) or from one pool (scope campaign).
type PurchaseLimit struct {
	ID                     string    `json:"id"`
	Scope                  string    `json:"scope"`
	Target                 string    `json:"target"`
	MaxQuantityPerCustomer int64     `json:"max_quantity_per_customer"`
	WindowSeconds          int64     `json:"window_seconds"`
	CreatedAt              time.Time `json:"created_at"`
	UpdatedAt              time.Time `json:"updated_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

// LimitList is one page of GET /v1/limits, by id. NextAfter is the cursor
// of the next page; absent on the last.
type LimitList struct {
	Limits    []PurchaseLimit `json:"limits"`
	NextAfter string          `json:"next_after,omitempty"`
}

type limitRequest struct {
	Scope                  string `json:"scope"`
	Target                 string `json:"target"`
	MaxQuantityPerCustomer *int64 `json:"max_quantity_per_customer"`
	WindowSeconds          *int64 `json:"window_seconds"`
}

func (s *Server) setLimit(w http.ResponseWriter, r *http.Request) {
	var req limitRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			if req.MaxQuantityPerCustomer == nil {
				return stockd.Command{}, stockd.InvalidField("max_quantity_per_customer", "is required")
			}
			if req.WindowSeconds == nil {
				return stockd.Command{}, stockd.InvalidField("window_seconds", "is required")
			}
			return stockd.Command{Op: &stockd.LimitSet{
				Scope: req.Scope, Target: req.Target,
				MaxQuantityPerCustomer: *req.MaxQuantityPerCustomer, WindowSeconds: *req.WindowSeconds,
			}}, nil
		},
		answer: func(res stockd.Result) any {
			var l stockd.PurchaseLimit
			mustDecodeObject(res.Object, &l)
			return limitOut(l)
		},
	})
}

// listLimits pages through the limits by id: after (an id, default none)
// and limit (default stockd.PageSizeDefault, at most stockd.PageSizeMax).
func (s *Server) listLimits(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	params := store.DocumentListParams{Kind: stockd.DocLimit, Limit: stockd.PageSizeDefault, After: q.Get("after")}
	if len(params.After) > 2*stockd.IdentifierLengthMax {
		writeProblem(w, stockd.InvalidField("after", "longer than %d bytes", 2*stockd.IdentifierLengthMax))
		return
	}
	if q.Has("limit") {
		limit, err := strconv.ParseInt(q.Get("limit"), 10, 64)
		if err != nil || limit < 1 || limit > stockd.PageSizeMax {
			writeProblem(w, stockd.InvalidField("limit", "must be an integer from 1 to %d", stockd.PageSizeMax))
			return
		}
		params.Limit = int(limit)
	}
	docs, err := s.store.DocumentList(r.Context(), params)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := LimitList{Limits: make([]PurchaseLimit, 0, len(docs))}
	for _, d := range docs {
		var l stockd.PurchaseLimit
		if err := json.Unmarshal(d.Body, &l); err != nil {
			s.failure(w, r, fmt.Errorf("decode limit %s: %w", d.ID, err))
			return
		}
		out.Limits = append(out.Limits, limitOut(l))
	}
	if len(docs) == params.Limit {
		out.NextAfter = docs[len(docs)-1].ID
	}
	writeJSON(w, http.StatusOK, out)
}

func limitOut(l stockd.PurchaseLimit) PurchaseLimit {
	return PurchaseLimit{
		ID: l.ID, Scope: l.Scope, Target: l.Target,
		MaxQuantityPerCustomer: l.MaxQuantityPerCustomer, WindowSeconds: l.WindowSeconds,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
	}
}
