package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) transitionRoutes() []route {
	return []route{
		{"POST /v1/reservations/{id}/confirm", "reservation_confirm", stockd.ScopeReserve, s.confirmReservation},
		{"POST /v1/reservations/{id}/release", "reservation_release", stockd.ScopeReserve, s.releaseReservation},
		{"POST /v1/reservations/{id}/fulfil", "reservation_fulfil", stockd.ScopeReserve, s.fulfilReservation},
	}
}

type releaseRequest struct {
	Reason string `json:"reason,omitempty"`
}

// fulfilRequest ships part of a confirmed reservation when it names
// lines, each as a return names one; without lines (or without a body)
// the fulfil ships everything left.
type fulfilRequest struct {
	Lines     []returnLineRequest `json:"lines,omitempty"`
	Reference string              `json:"reference,omitempty"`
}

// confirmRequest is what a confirm may say about a payment that arrives
// late: on_late (exception, the default, or re_reserve), the payment's
// reference and time, kept by the exception a late confirm records.
type confirmRequest struct {
	OnLate           string     `json:"on_late,omitempty"`
	PaymentReference string     `json:"payment_reference,omitempty"`
	PaidAt           *time.Time `json:"paid_at,omitempty"`
}

func (s *Server) confirmReservation(w http.ResponseWriter, r *http.Request) {
	s.transition(w, r, stockd.KindConfirm)
}

func (s *Server) fulfilReservation(w http.ResponseWriter, r *http.Request) {
	s.transition(w, r, stockd.KindFulfil)
}

func (s *Server) releaseReservation(w http.ResponseWriter, r *http.Request) {
	s.transition(w, r, stockd.KindRelease)
}

// transition serves confirm, release and fulfil. Release reads a reason,
// confirm what to do when it comes late (confirmRequest), fulfil the lines
// of a partial shipment; each also takes an empty body or {}.
func (s *Server) transition(w http.ResponseWriter, r *http.Request, kind stockd.CommandKind) {
	var release releaseRequest
	var fulfil fulfilRequest
	var confirm confirmRequest
	var empty emptyRequest
	body := any(&empty)
	switch kind {
	case stockd.KindRelease:
		body = &release
	case stockd.KindFulfil:
		body = &fulfil
	case stockd.KindConfirm:
		body = &confirm
	}
	s.mutate(w, r, mutation{
		body:         body,
		bodyOptional: true,
		command: func() (stockd.Command, *stockd.Error) {
			id, err := pathIdentifier(r, "id")
			if err != nil {
				return stockd.Command{}, err
			}
			op := &stockd.Transition{Action: kind, ReservationID: id, Reason: release.Reason,
				OnLate: confirm.OnLate, PaymentReference: confirm.PaymentReference, PaidAt: confirm.PaidAt, Reference: fulfil.Reference}
			if fulfil.Lines != nil && (len(fulfil.Lines) == 0 || len(fulfil.Lines) > stockd.LinesPerReservationMax) {
				// An empty list ships nothing: not "everything", which is
				// said by leaving lines out.
				return stockd.Command{}, stockd.InvalidField("lines", "must hold 1 to %d lines when given", stockd.LinesPerReservationMax)
			}
			for _, l := range fulfil.Lines {
				q, err := requiredQuantity("lines.quantity", l.Quantity)
				if err != nil {
					return stockd.Command{}, err
				}
				op.Lines = append(op.Lines, stockd.ReturnLine{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: q})
			}
			return stockd.Command{Op: op}, nil
		},
		answer: func(res stockd.Result) any {
			out := reservationOut(*res.Reservation)
			out.ReReserved = res.ReReserved
			return out
		},
		submit: s.submitTransition,
	})
}
