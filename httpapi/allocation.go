package httpapi

import (
	"net/http"

	"github.com/stockd/stockd"
)

func (s *Server) allocationRoutes() []route {
	return []route{
		{"POST /v1/allocations", "allocation_create", stockd.ScopeAdmin, s.createAllocation},
	}
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

type allocationRequest struct {
	SKU      string `json:"sku"`
	Location string `json:"location,omitempty"`
	// FromPool defaults to normal.
	FromPool  string `json:"from_pool,omitempty"`
	ToPool    string `json:"to_pool"`
	Quantity  *int64 `json:"quantity"`
	Reference string `json:"reference,omitempty"`
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
