package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

// returnRoutes serves returns, and the quarantine and moves that deal with
// what comes back. Returns are the order services' (reserve); everything
// that moves stock inside the warehouse is stock.
func (s *Server) returnRoutes() []route {
	return []route{
		{"POST /v1/returns", "return_create", stockd.ScopeReserve, s.createReturn},
		{"POST /v1/quarantine/release", "quarantine_release", stockd.ScopeStock, s.releaseQuarantine},
		{"POST /v1/quarantine/scrap", "quarantine_scrap", stockd.ScopeStock, s.scrapQuarantine},
		{"POST /v1/moves", "move_create", stockd.ScopeStock, s.createMove},
	}
}

// ReturnReceipt is the answer to a return: a refund (before shipment) or a
// return (after it), with the lines it gave back and the reservation after.
type ReturnReceipt struct {
	ID            string            `json:"id"`
	ReservationID string            `json:"reservation_id"`
	Type          string            `json:"type"`
	Restock       bool              `json:"restock"`
	Lines         []ReservationLine `json:"lines"`
	Reference     string            `json:"reference,omitempty"`
	Reservation   Reservation       `json:"reservation"`
	CreatedAt     time.Time         `json:"created_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

type returnLineRequest struct {
	SKU      string `json:"sku"`
	Location string `json:"location,omitempty"`
	Pool     string `json:"pool,omitempty"`
	Quantity *int64 `json:"quantity"`
}

type returnRequest struct {
	ReservationID string              `json:"reservation_id"`
	Lines         []returnLineRequest `json:"lines"`
	Restock       bool                `json:"restock,omitempty"`
	Reference     string              `json:"reference,omitempty"`
}

type quarantineRequest struct {
	SKU       string `json:"sku"`
	Location  string `json:"location,omitempty"`
	Pool      string `json:"pool,omitempty"`
	Quantity  *int64 `json:"quantity"`
	Reason    string `json:"reason,omitempty"` // scrap only
	Reference string `json:"reference,omitempty"`
}

type moveRequest struct {
	SKU       string `json:"sku"`
	Location  string `json:"location,omitempty"`
	Pool      string `json:"pool,omitempty"`
	From      string `json:"from"`
	To        string `json:"to"`
	Quantity  *int64 `json:"quantity"`
	Reference string `json:"reference,omitempty"`
}

func returnOut(r stockd.ReturnReceipt) ReturnReceipt {
	out := ReturnReceipt{ID: r.ID, ReservationID: r.ReservationID, Type: r.Type, Restock: r.Restock, Reference: r.Reference,
		Reservation: reservationOut(r.Reservation), CreatedAt: r.CreatedAt.UTC(), Lines: make([]ReservationLine, 0, len(r.Lines))}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, ReservationLine{SKU: l.SKU, Quantity: l.Quantity, Location: l.Location, Pool: l.Pool, Bundle: l.Bundle})
	}
	return out
}

func answerPosition(res stockd.Result) any { return positionOut(*res.Position) }

func (s *Server) createReturn(w http.ResponseWriter, r *http.Request) {
	var req returnRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			op := &stockd.Return{ReservationID: req.ReservationID, Restock: req.Restock, Reference: req.Reference}
			if len(req.Lines) > stockd.LinesPerReservationMax {
				return stockd.Command{}, stockd.InvalidField("lines", "must hold 1 to %d lines", stockd.LinesPerReservationMax)
			}
			for _, l := range req.Lines {
				q, err := requiredQuantity("lines.quantity", l.Quantity)
				if err != nil {
					return stockd.Command{}, err
				}
				op.Lines = append(op.Lines, stockd.ReturnLine{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: q})
			}
			return stockd.Command{Op: op}, nil
		},
		answer: objectOut(returnOut),
	})
}

func (s *Server) releaseQuarantine(w http.ResponseWriter, r *http.Request) {
	var req quarantineRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			if req.Reason != "" {
				return stockd.Command{}, stockd.InvalidField("reason", "is for scrap only")
			}
			return stockd.Command{Op: &stockd.QuarantineRelease{
				Position: stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool}, Quantity: q, Reference: req.Reference,
			}}, nil
		},
		answer: answerPosition,
	})
}

func (s *Server) scrapQuarantine(w http.ResponseWriter, r *http.Request) {
	var req quarantineRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.QuarantineScrap{
				Position: stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool}, Quantity: q,
				Reason: req.Reason, Reference: req.Reference,
			}}, nil
		},
		answer: answerPosition,
	})
}

func (s *Server) createMove(w http.ResponseWriter, r *http.Request) {
	var req moveRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.StockMove{
				Position: stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool}, Quantity: q,
				From: req.From, To: req.To, Reference: req.Reference,
			}}, nil
		},
		answer: answerPosition,
	})
}
