package httpapi

import (
	"errors"
	"net/http"

	"github.com/stockd/stockd"
)

func (s *Server) createReceipt(w http.ResponseWriter, r *http.Request) {
	var req receiptRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			if req.Quantity == nil {
				return stockd.Command{}, stockd.InvalidField("quantity", "is required")
			}
			return stockd.Command{Op: &stockd.Receive{
				Position:  stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool},
				Quantity:  *req.Quantity,
				Reference: req.Reference,
			}}, nil
		},
		answer: func(res stockd.Result) any { return positionOut(*res.Position) },
	})
}

func (s *Server) createAdjustment(w http.ResponseWriter, r *http.Request) {
	var req adjustmentRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			adjust := &stockd.Adjust{
				Position:  stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool},
				Reason:    req.Reason,
				Reference: req.Reference,
			}
			// Well-formed JSON that says two things, or nothing: 422, not a
			// guess at which one the caller meant.
			switch {
			case req.Delta != nil && (req.SetOnHand != nil || req.ExpectedOnHand != nil):
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "give either delta, or set_on_hand with expected_on_hand, not both")
			case req.Delta != nil:
				adjust.Delta = *req.Delta
			case req.SetOnHand != nil && req.ExpectedOnHand != nil:
				adjust.Set, adjust.SetOnHand, adjust.ExpectedOnHand = true, *req.SetOnHand, *req.ExpectedOnHand
			case req.SetOnHand != nil:
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "set_on_hand needs expected_on_hand, the on_hand the count was taken against")
			case req.ExpectedOnHand != nil:
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "expected_on_hand needs set_on_hand")
			default:
				return stockd.Command{}, stockd.Errorf(stockd.CodeUnprocessable, "give delta, or set_on_hand with expected_on_hand")
			}
			return stockd.Command{Op: adjust}, nil
		},
		answer: func(res stockd.Result) any {
			if res.Pending {
				return objectAnswer[Approval](res)
			}
			return positionOut(*res.Position)
		},
	})
}

func (s *Server) getStock(w http.ResponseWriter, r *http.Request) {
	sku, verr := pathIdentifier(r, "sku")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	if !s.skuExists(w, r, sku) {
		return
	}
	positions, err := s.store.PositionListBySKU(r.Context(), sku)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	b, isBundle, err := s.bundle(r.Context(), sku)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	if !isBundle {
		writeJSON(w, http.StatusOK, stockOut(sku, positions))
		return
	}
	avail, err := s.bundleAvailability(r.Context(), b)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, bundleStock{Stock: stockOut(sku, positions), Bundle: &avail})
}

// bundleStock is the stock answer of a bundle SKU: its own positions (it
// holds no stock) and what its components make.
type bundleStock struct {
	Stock
	Bundle *BundleAvailability `json:"bundle,omitempty"`
}

// skuExists reports whether sku exists; when it does not, or the store
// fails, it has answered the request.
func (s *Server) skuExists(w http.ResponseWriter, r *http.Request, sku string) bool {
	_, err := s.store.SKUGet(r.Context(), sku)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnknownSKU, "sku %q is unknown", sku))
		return false
	}
	if err != nil {
		s.failure(w, r, err)
		return false
	}
	return true
}
