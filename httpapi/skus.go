package httpapi

import (
	"errors"
	"net/http"

	"github.com/stockd/stockd"
)

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
	sku, err := s.store.SKUGet(r.Context(), id)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnknownSKU, "sku %q is unknown", id))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, skuOut(sku))
}

// pathIdentifier returns the path value name, which must be an identifier
// (SKU, location, pool or reservation id shape).
func pathIdentifier(r *http.Request, name string) (string, *stockd.Error) {
	v := r.PathValue(name)
	if !stockd.ValidIdentifier(v) {
		return "", stockd.InvalidField(name, "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax)
	}
	return v, nil
}
