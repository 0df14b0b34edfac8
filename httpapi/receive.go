package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

func (s *Server) receiveRoutes() []route {
	return []route{
		{"POST /v1/receipts", "receipt_create", stockd.ScopeStock, s.createReceipt},
	}
}

type receiptRequest struct {
	SKU       string `json:"sku"`
	Location  string `json:"location,omitempty"`
	Pool      string `json:"pool,omitempty"`
	Quantity  *int64 `json:"quantity"`
	Reference string `json:"reference,omitempty"`
}

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
