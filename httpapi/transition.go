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
// confirm what to do when it comes late (confirmRequest); fulfil takes an
// empty body or {}.
func (s *Server) transition(w http.ResponseWriter, r *http.Request, kind stockd.CommandKind) {
	var release releaseRequest
	var confirm confirmRequest
	var empty emptyRequest
	body := any(&empty)
	switch kind {
	case stockd.KindRelease:
		body = &release
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
			return stockd.Command{Op: &stockd.Transition{Action: kind, ReservationID: id, Reason: release.Reason,
				OnLate: confirm.OnLate, PaymentReference: confirm.PaymentReference, PaidAt: confirm.PaidAt}}, nil
		},
		answer: func(res stockd.Result) any {
			out := reservationOut(*res.Reservation)
			out.ReReserved = res.ReReserved
			return out
		},
		submit: s.submitTransition,
	})
}
