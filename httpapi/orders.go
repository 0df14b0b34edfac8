package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// orderRoutes serves bundles and purchase limits. Defining them is the
// admin's business; reading a bundle is anyone's who reads stock.
func (s *Server) orderRoutes() []route {
	return []route{
		{"POST /v1/bundles", "bundle_create", stockd.ScopeAdmin, s.createBundle},
		{"GET /v1/bundles/{bundle}", "bundle_get", stockd.ScopeRead, s.getBundle},
		{"POST /v1/limits", "limit_set", stockd.ScopeAdmin, s.setLimit},
		{"GET /v1/limits", "limit_list", stockd.ScopeAdmin, s.listLimits},
	}
}

// BundleComponent is quantity units of a component SKU in one bundle.
type BundleComponent struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
}

// Bundle is a bundle SKU defined by its components. Availability is set
// by GET /v1/bundles/{bundle}, not by its creation.
type Bundle struct {
	Bundle       string              `json:"bundle"`
	Components   []BundleComponent   `json:"components"`
	CreatedAt    time.Time           `json:"created_at"`
	Availability *BundleAvailability `json:"availability,omitempty"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

// BundleAvailability is how many whole bundles the components' available
// quantities make: the least, over components, of available divided by
// the quantity one bundle needs. Available counts the normal pool of
// active locations; a reservation of n bundles by the priority strategy
// also needs one location holding each component line whole.
type BundleAvailability struct {
	Available  int64                    `json:"available"`
	Components []BundleComponentBalance `json:"components"`
}

// BundleComponentBalance is one component's share of BundleAvailability.
type BundleComponentBalance struct {
	SKU       string `json:"sku"`
	Quantity  int64  `json:"quantity"`
	Available int64  `json:"available"`
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

type bundleComponentRequest struct {
	SKU      string `json:"sku"`
	Quantity *int64 `json:"quantity"`
}

type bundleRequest struct {
	Bundle     string                   `json:"bundle"`
	Components []bundleComponentRequest `json:"components"`
}

type limitRequest struct {
	Scope                  string `json:"scope"`
	Target                 string `json:"target"`
	MaxQuantityPerCustomer *int64 `json:"max_quantity_per_customer"`
	WindowSeconds          *int64 `json:"window_seconds"`
}

func (s *Server) createBundle(w http.ResponseWriter, r *http.Request) {
	var req bundleRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			// The bound is the domain's; checking it first keeps a huge list
			// from being copied.
			if len(req.Components) > stockd.BundleComponentsMax {
				return stockd.Command{}, stockd.InvalidField("components", "must hold 1 to %d components", stockd.BundleComponentsMax)
			}
			op := &stockd.BundleCreate{Bundle: req.Bundle, Components: make([]stockd.BundleComponent, 0, len(req.Components))}
			for _, c := range req.Components {
				if c.Quantity == nil {
					return stockd.Command{}, stockd.InvalidField("components.quantity", "is required")
				}
				op.Components = append(op.Components, stockd.BundleComponent{SKU: c.SKU, Quantity: *c.Quantity})
			}
			return stockd.Command{Op: op}, nil
		},
		answer: func(res stockd.Result) any {
			var b stockd.Bundle
			mustDecodeObject(res.Object, &b)
			return bundleOut(b)
		},
	})
}

func (s *Server) getBundle(w http.ResponseWriter, r *http.Request) {
	id, verr := pathIdentifier(r, "bundle")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	b, found, err := s.bundle(r.Context(), id)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	if !found {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "bundle %q not found", id))
		return
	}
	avail, err := s.bundleAvailability(r.Context(), b)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := bundleOut(b)
	out.Availability = &avail
	writeJSON(w, http.StatusOK, out)
}

// bundle reads the bundle defined under sku, if any.
func (s *Server) bundle(ctx context.Context, sku string) (stockd.Bundle, bool, error) {
	var b stockd.Bundle
	doc, err := s.store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocBundle, ID: sku})
	if errors.Is(err, stockd.ErrNotFound) {
		return b, false, nil
	}
	if err != nil {
		return b, false, err
	}
	if err := json.Unmarshal(doc.Body, &b); err != nil {
		return b, false, fmt.Errorf("decode bundle %s: %w", sku, err)
	}
	return b, true, nil
}

// bundleAvailability reads each component's available quantity in the
// normal pool of the active locations, where a bundle line that names no
// pool can take it.
func (s *Server) bundleAvailability(ctx context.Context, b stockd.Bundle) (BundleAvailability, error) {
	locations, err := s.store.LocationList(ctx)
	if err != nil {
		return BundleAvailability{}, err
	}
	active := map[string]bool{}
	for _, l := range locations {
		active[l.ID] = !l.Inactive
	}
	out := BundleAvailability{Components: make([]BundleComponentBalance, 0, len(b.Components))}
	available := map[string]int64{}
	for _, c := range b.Components {
		positions, err := s.store.PositionListBySKU(ctx, c.SKU)
		if err != nil {
			return BundleAvailability{}, err
		}
		for _, p := range positions {
			if p.Pool == stockd.PoolDefault && active[p.Location] {
				available[c.SKU] += max(p.Available(), 0)
			}
		}
		out.Components = append(out.Components, BundleComponentBalance{SKU: c.SKU, Quantity: c.Quantity, Available: available[c.SKU]})
	}
	out.Available = stockd.BundleAvailable(b, available)
	return out, nil
}

func bundleOut(b stockd.Bundle) Bundle {
	out := Bundle{Bundle: b.ID, CreatedAt: b.CreatedAt, Components: make([]BundleComponent, len(b.Components))}
	for i, c := range b.Components {
		out.Components[i] = BundleComponent{SKU: c.SKU, Quantity: c.Quantity}
	}
	return out
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

// mustDecodeObject decodes an operation's answer. The domain encoded it
// from the type decoded into, so a failure is a bug: the handler's panic
// becomes a logged 500.
func mustDecodeObject(object json.RawMessage, v any) {
	if err := json.Unmarshal(object, v); err != nil {
		panic(fmt.Sprintf("httpapi: operation answer not decodable: %v", err))
	}
}
