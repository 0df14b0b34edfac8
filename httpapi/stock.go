package httpapi

import (
	"errors"
	"net/http"

	"github.com/stockd/stockd"
)

func (s *Server) stockRoutes() []route {
	return []route{
		{"GET /v1/stock/{sku}", "stock_get", stockd.ScopeRead, s.getStock},
	}
}

// StockPosition is one position inside Stock.
type StockPosition struct {
	Location string `json:"location"`
	Pool     string `json:"pool"`
	Balance
}

// Stock is every position of one SKU and their totals.
type Stock struct {
	SKU       string          `json:"sku"`
	Positions []StockPosition `json:"positions"`
	Totals    Balance         `json:"totals"`
}

func stockOut(sku string, positions []stockd.Position) Stock {
	out := Stock{SKU: sku, Positions: make([]StockPosition, 0, len(positions))}
	var total stockd.Counters
	for _, p := range positions {
		out.Positions = append(out.Positions, StockPosition{Location: p.Location, Pool: p.Pool, Balance: balanceOut(p.Counters)})
		total = total.Add(p.Counters)
	}
	out.Totals = balanceOut(total)
	return out
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
