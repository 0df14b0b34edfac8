package httpapi

import (
	"net/http"

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

func (s *Server) confirmReservation(w http.ResponseWriter, r *http.Request) {
	s.transition(w, r, stockd.KindConfirm)
}

func (s *Server) fulfilReservation(w http.ResponseWriter, r *http.Request) {
	s.transition(w, r, stockd.KindFulfil)
}

func (s *Server) releaseReservation(w http.ResponseWriter, r *http.Request) {
	s.transition(w, r, stockd.KindRelease)
}

// transition serves confirm, release and fulfil. Only release reads a
// field (the reason); the others take an empty body or {}.
func (s *Server) transition(w http.ResponseWriter, r *http.Request, kind stockd.CommandKind) {
	var release releaseRequest
	var empty emptyRequest
	body := any(&empty)
	if kind == stockd.KindRelease {
		body = &release
	}
	s.mutate(w, r, mutation{
		body:         body,
		bodyOptional: true,
		command: func() (stockd.Command, *stockd.Error) {
			id, err := pathIdentifier(r, "id")
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.Transition{Action: kind, ReservationID: id, Reason: release.Reason}}, nil
		},
		answer: func(res stockd.Result) any { return reservationOut(*res.Reservation) },
		submit: s.submitTransition,
	})
}
