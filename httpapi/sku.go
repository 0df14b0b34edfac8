package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

// skuRoutes: creating a SKU needs stock, not admin: the feed that receives
// a new product's first delivery is the one that learns of it.
func (s *Server) skuRoutes() []route {
	return []route{
		{"POST /v1/skus", "sku_create", stockd.ScopeStock, s.createSKU},
		{"GET /v1/skus", "sku_list", stockd.ScopeRead, s.listSKUs},
		{"GET /v1/skus/{sku}", "sku_get", stockd.ScopeRead, s.getSKU},
	}
}

// SKUList is one page of GET /v1/skus, by id. NextAfter is the cursor of
// the next page, absent after the last.
type SKUList struct {
	SKUs      []SKU  `json:"skus"`
	NextAfter string `json:"next_after,omitempty"`
}

func (s *Server) listSKUs(w http.ResponseWriter, r *http.Request) {
	p, verr := documentPage(r.URL.Query(), "")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	skus, err := s.store.SKUList(r.Context(), p.After, p.Limit)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := SKUList{SKUs: make([]SKU, 0, len(skus))}
	for _, sku := range skus {
		out.SKUs = append(out.SKUs, skuOut(sku))
	}
	if len(skus) == p.Limit {
		out.NextAfter = skus[len(skus)-1].ID
	}
	writeJSON(w, http.StatusOK, out)
}

// SKU is a stock-keeping unit.
type SKU struct {
	SKU  string `json:"sku"`
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Deduction is when orders take stock: at_order, at_payment or
	// at_shipment.
	Deduction string `json:"deduction"`
	// ApprovalThreshold is the largest on_hand change an adjustment makes
	// without approval.
	ApprovalThreshold int64 `json:"approval_threshold"`
	// Bundle is true for a bundle SKU: it holds no stock of its own.
	Bundle    bool      `json:"bundle"`
	CreatedAt time.Time `json:"created_at"`
	// Replenishment is the SKU's own replenishment settings (those it
	// leaves out take the deployment's defaults), on the answers about one
	// SKU: GET /v1/skus/{sku} and PATCH.
	Replenishment *stockd.ReplenishmentSettings `json:"replenishment,omitempty"`
	// Replayed is set by Client when the answer is the stored answer of an
	// earlier request with the same idempotency key; never on the wire.
	Replayed bool `json:"-"`
	// ETag is set by Client from the answer's header on a read or a change
	// of one SKU: the version of its settings, for If-Match. Never in the
	// body.
	ETag string `json:"-"`
}

type skuRequest struct {
	SKU  string `json:"sku"`
	Name string `json:"name,omitempty"`
	Unit string `json:"unit,omitempty"`
	// Deduction defaults to at_order.
	Deduction string `json:"deduction,omitempty"`
	// ApprovalThreshold defaults to 100 units.
	ApprovalThreshold *int64 `json:"approval_threshold,omitempty"`
	// Bundle creates a bundle SKU, defined by POST /v1/bundles.
	Bundle bool `json:"bundle,omitempty"`
}

func skuOut(s stockd.SKU) SKU {
	return SKU{SKU: s.ID, Name: s.Name, Unit: s.Unit, Deduction: s.Deduction, ApprovalThreshold: s.Threshold(), Bundle: s.Bundle, CreatedAt: s.CreatedAt.UTC()}
}

func (s *Server) createSKU(w http.ResponseWriter, r *http.Request) {
	var req skuRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			sku := &stockd.SKU{ID: req.SKU, Name: req.Name, Unit: req.Unit, Deduction: req.Deduction, Bundle: req.Bundle}
			if req.ApprovalThreshold != nil {
				// Zero means "the default" to the domain; on the wire it is
				// out of bounds like any other.
				if *req.ApprovalThreshold < 1 || *req.ApprovalThreshold > stockd.QuantityMax {
					return stockd.Command{}, stockd.InvalidField("approval_threshold", "must be an integer from 1 to %d", stockd.QuantityMax)
				}
				sku.ApprovalThreshold = *req.ApprovalThreshold
			}
			return stockd.Command{Op: &stockd.SKUCreate{SKU: *sku}}, nil
		},
		answer: func(res stockd.Result) any { return skuOut(*res.SKU) },
	})
}

func (s *Server) getSKU(w http.ResponseWriter, r *http.Request) {
	id, verr := pathIdentifier(r, "sku")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	version, err := s.settingsVersion(r.Context(), stockd.DocSettings, stockd.SettingsID("sku", id))
	if err != nil {
		s.failure(w, r, err)
		return
	}
	sku, err := s.store.SKUGet(r.Context(), id)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnknownSKU, "sku %q is unknown", id))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := skuOut(sku)
	settings, err := s.skuReplenishmentSettings(r.Context(), id)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out.Replenishment = &settings
	w.Header().Set(headerETag, etag(version))
	writeJSON(w, http.StatusOK, out)
}
