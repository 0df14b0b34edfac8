package httpapi

import (
	"errors"
	"net/http"
	"slices"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) createReservation(w http.ResponseWriter, r *http.Request) {
	var req reservationRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			reserve := &stockd.Reserve{
				Commit: req.Commit, Strategy: req.Strategy, CustomerID: req.CustomerID,
				Lines: make([]stockd.LineRequest, 0, len(req.Lines)),
			}
			// The domain reads a zero TTL as "the default"; on the wire only
			// an absent ttl_seconds means that, and an explicit 0 is out of
			// bounds like any other.
			if req.TTLSeconds != nil {
				ttl := *req.TTLSeconds
				if ttl < int64(stockd.ReservationTTLMin/time.Second) || ttl > int64(stockd.ReservationTTLMax/time.Second) {
					return stockd.Command{}, stockd.InvalidField("ttl_seconds", "must be from %d to %d", int64(stockd.ReservationTTLMin/time.Second), int64(stockd.ReservationTTLMax/time.Second))
				}
				reserve.TTL = time.Duration(ttl) * time.Second
			}
			for _, l := range req.Lines {
				if l.Quantity == nil {
					return stockd.Command{}, stockd.InvalidField("lines.quantity", "is required")
				}
				reserve.Lines = append(reserve.Lines, stockd.LineRequest{SKU: l.SKU, Quantity: *l.Quantity, Location: l.Location, Pool: l.Pool})
			}
			if err := s.limitSKUs(w, reserve.Lines); err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: reserve}, nil
		},
		answer: func(res stockd.Result) any { return reservationOut(*res.Reservation) },
	})
}

// limitSKUs takes one token from the bucket of every SKU the lines name,
// when the per-SKU limit is on: a hot SKU's reservations are refused before
// they queue, so that they cannot crowd out every other SKU's. When one
// bucket is empty, nothing is taken; Retry-After tells when to come back
// (with the same idempotency key).
func (s *Server) limitSKUs(w http.ResponseWriter, lines []stockd.LineRequest) *stockd.Error {
	// Too many lines is the engine's to refuse; it is not worth a bucket.
	if s.skuLimits == nil || len(lines) > stockd.LinesPerReservationMax {
		return nil
	}
	skus := make([]string, 0, len(lines))
	for _, l := range lines {
		// Malformed ids are the engine's to refuse; they get no bucket.
		if stockd.ValidIdentifier(l.SKU) && !slices.Contains(skus, l.SKU) {
			skus = append(skus, l.SKU)
		}
	}
	wait, ok := s.skuLimits.take(s.now(), skus...)
	if ok {
		return nil
	}
	setRetryAfter(w, wait)
	return stockd.Errorf(stockd.CodeRateLimited, "reservations of these SKUs arrive faster than their limit; retry later with the same idempotency key")
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
	})
}

func (s *Server) getReservation(w http.ResponseWriter, r *http.Request) {
	id, verr := pathIdentifier(r, "id")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	res, err := s.store.ReservationGet(r.Context(), id)
	s.answerReservation(w, r, res, err, "reservation "+id)
}

// getReservationByKey is how a caller whose reserve timed out learns what
// happened, instead of reserving again.
func (s *Server) getReservationByKey(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	if !stockd.ValidIdempotencyKey(key) {
		writeProblem(w, stockd.InvalidField("key", "must be 1-%d printable ASCII characters", stockd.IdempotencyKeyLengthMax))
		return
	}
	res, err := s.store.ReservationGetByKey(r.Context(), key)
	s.answerReservation(w, r, res, err, "reservation with key "+key)
}

func (s *Server) answerReservation(w http.ResponseWriter, r *http.Request, res stockd.Reservation, err error, what string) {
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "%s not found", what))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, reservationOut(res))
}
