package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

// shipmentRoutes: shipments are the order services' (reserve).
func (s *Server) shipmentRoutes() []route {
	return []route{
		{"POST /v1/shipments", "shipment_create", stockd.ScopeReserve, s.createShipment},
	}
}

// ShipmentLine is one position and the quantity that left it.
type ShipmentLine struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
	Quantity int64  `json:"quantity"`
}

// Shipment is the answer to a shipment: what left and the positions after.
type Shipment struct {
	ID        string         `json:"id"`
	Lines     []ShipmentLine `json:"lines"`
	Positions []Position     `json:"positions"`
	Reference string         `json:"reference,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

type stockLineRequest struct {
	SKU      string `json:"sku"`
	Location string `json:"location,omitempty"`
	Pool     string `json:"pool,omitempty"`
	Quantity *int64 `json:"quantity"`
}

type shipmentRequest struct {
	Lines     []stockLineRequest `json:"lines"`
	Reference string             `json:"reference,omitempty"`
}

func shipmentOut(r stockd.ShipmentReceipt) Shipment {
	out := Shipment{ID: r.ID, Reference: r.Reference, CreatedAt: r.CreatedAt.UTC(),
		Lines: make([]ShipmentLine, 0, len(r.Shipped)), Positions: make([]Position, 0, len(r.Positions))}
	for _, l := range r.Shipped {
		out.Lines = append(out.Lines, ShipmentLine(l))
	}
	for _, p := range r.Positions {
		out.Positions = append(out.Positions, positionOut(p))
	}
	return out
}

func (s *Server) createShipment(w http.ResponseWriter, r *http.Request) {
	var req shipmentRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			if len(req.Lines) > stockd.LinesPerReservationMax {
				return stockd.Command{}, stockd.InvalidField("lines", "must hold 1 to %d lines", stockd.LinesPerReservationMax)
			}
			op := &stockd.Shipment{Reference: req.Reference}
			for _, l := range req.Lines {
				q, err := requiredQuantity("lines.quantity", l.Quantity)
				if err != nil {
					return stockd.Command{}, err
				}
				op.Lines = append(op.Lines, stockd.ShipmentLine{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: q})
			}
			return stockd.Command{Op: op}, nil
		},
		answer: objectOut(shipmentOut),
	})
}
