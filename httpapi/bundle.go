package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

// bundleRoutes: defining a bundle is the admin's business; reading one is
// anyone's who reads stock.
func (s *Server) bundleRoutes() []route {
	return []route{
		{"POST /v1/bundles", "bundle_create", stockd.ScopeAdmin, s.createBundle},
		{"GET /v1/bundles/{bundle}", "bundle_get", stockd.ScopeRead, s.getBundle},
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

type bundleComponentRequest struct {
	SKU      string `json:"sku"`
	Quantity *int64 `json:"quantity"`
}

type bundleRequest struct {
	Bundle     string                   `json:"bundle"`
	Components []bundleComponentRequest `json:"components"`
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
