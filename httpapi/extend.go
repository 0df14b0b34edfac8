package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) extendRoutes() []route {
	return []route{
		{"POST /v1/reservations/{id}/extend", "reservation_extend", stockd.ScopeReserve, s.extendReservation},
	}
}

type extendRequest struct {
	TTLSeconds *int64 `json:"ttl_seconds"`
}

func (s *Server) extendReservation(w http.ResponseWriter, r *http.Request) {
	var req extendRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, err := pathIdentifier(r, "id")
			if err != nil {
				return stockd.Command{}, err
			}
			seconds, err := requiredQuantity("ttl_seconds", req.TTLSeconds)
			if err != nil {
				return stockd.Command{}, err
			}
			if seconds < 1 || seconds > int64(stockd.ReservationTTLMax/time.Second) {
				return stockd.Command{}, stockd.InvalidField("ttl_seconds", "must be from 1 to %d", int64(stockd.ReservationTTLMax/time.Second))
			}
			return stockd.Command{Op: &stockd.Extend{ReservationID: id, TTL: time.Duration(seconds) * time.Second}}, nil
		},
		answer: func(res stockd.Result) any { return reservationOut(*res.Reservation) },
	})
}
