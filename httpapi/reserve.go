package httpapi

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

func (s *Server) reserveRoutes() []route {
	return []route{
		{"POST /v1/reservations", "reservation_create", stockd.ScopeReserve, s.createReservation},
		{"GET /v1/reservations", "reservation_list", stockd.ScopeRead, s.listReservations},
		{"GET /v1/reservations/{id}", "reservation_get", stockd.ScopeRead, s.getReservation},
	}
}

// ReservationLine is one placed line of a reservation.
type ReservationLine struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
	// Bundle names the bundle SKU a component line was reserved for.
	Bundle   string `json:"bundle,omitempty"`
	Refunded int64  `json:"refunded,omitempty"`
	// Shipped is what left in shipments: all of what was not refunded
	// once the reservation is fulfilled, part of it after a partial
	// fulfil.
	Shipped  int64 `json:"shipped,omitempty"`
	Returned int64 `json:"returned,omitempty"`
}

// Reservation holds stock for an order.
type Reservation struct {
	ID            string            `json:"id"`
	Key           string            `json:"key"`
	Status        string            `json:"status"`
	ExpiresAt     time.Time         `json:"expires_at"`
	CreatedAt     time.Time         `json:"created_at"`
	UpdatedAt     time.Time         `json:"updated_at"`
	ReleaseReason string            `json:"release_reason,omitempty"`
	CustomerID    string            `json:"customer_id,omitempty"`
	OrderID       string            `json:"order_id,omitempty"`
	Lines         []ReservationLine `json:"lines"`
	// Expired is set on a read of a pending reservation whose deadline
	// passed: a confirm will be refused reservation_expired, and the
	// stock comes back once the expiry worker releases it. Only reads carry
	// it: an answer to a mutation is stored and replayed as it was given.
	Expired bool `json:"expired,omitempty"`
	// ReReserved is set on the answer of a late confirm with on_late
	// re_reserve that reserved and confirmed the lines again.
	ReReserved bool `json:"re_reserved,omitempty"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

type reservationLineRequest struct {
	SKU      string `json:"sku"`
	Quantity *int64 `json:"quantity"`
	Location string `json:"location,omitempty"`
	Pool     string `json:"pool,omitempty"`
}

type reservationRequest struct {
	Lines []reservationLineRequest `json:"lines"`
	// TTLSeconds defaults to 15 minutes when absent; an explicit 0 is out of
	// bounds.
	TTLSeconds *int64 `json:"ttl_seconds,omitempty"`
	Commit     bool   `json:"commit,omitempty"`
	// Strategy places lines without a location: priority (the default),
	// single_location or split.
	Strategy   string `json:"strategy,omitempty"`
	CustomerID string `json:"customer_id,omitempty"`
	// OrderID is the order's business number: while one reservation holds
	// it, another is refused duplicate_order.
	OrderID string `json:"order_id,omitempty"`
}

func reservationOut(r stockd.Reservation) Reservation {
	out := Reservation{
		ID:            r.ID,
		Key:           stockd.UnscopedKey(r.Key),
		Status:        string(r.Status),
		ExpiresAt:     r.ExpiresAt.UTC(),
		CreatedAt:     r.CreatedAt.UTC(),
		UpdatedAt:     r.UpdatedAt.UTC(),
		ReleaseReason: r.ReleaseReason,
		CustomerID:    r.CustomerID,
		OrderID:       r.OrderID,
		Lines:         make([]ReservationLine, 0, len(r.Lines)),
	}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, ReservationLine{
			SKU: l.SKU, Quantity: l.Quantity, Location: l.Location, Pool: l.Pool,
			Bundle: l.Bundle, Refunded: l.Refunded, Shipped: l.Shipped, Returned: l.Returned,
		})
	}
	return out
}

func (s *Server) createReservation(w http.ResponseWriter, r *http.Request) {
	var req reservationRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			reserve := &stockd.Reserve{
				Commit: req.Commit, Strategy: req.Strategy, CustomerID: req.CustomerID, OrderID: req.OrderID,
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
		submit: s.submitReservation,
		observe: func(cmd stockd.Command, res stockd.Result) {
			s.metrics.observeReservation(cmd.Op.(*stockd.Reserve), res)
		},
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
// ReservationList is one page of GET /v1/reservations.
type ReservationList struct {
	Reservations []Reservation `json:"reservations"`
	// NextAfter is the cursor of the next page; empty after the last.
	NextAfter string `json:"next_after,omitempty"`
}

// listReservations pages through reservations by id, filtered; with key,
// it answers the one reservation made under that key instead, as it did
// before it listed.
func (s *Server) listReservations(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	if q.Has("key") {
		if len(q) > 1 {
			writeProblem(w, stockd.InvalidField("key", "reads one reservation: it takes no other parameter"))
			return
		}
		s.getReservationByKey(w, r)
		return
	}
	p, verr := reservationListParams(q)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	reservations, err := s.store.ReservationList(r.Context(), p)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	now := s.now()
	out := ReservationList{Reservations: make([]Reservation, 0, len(reservations))}
	for _, res := range reservations {
		o := reservationOut(res)
		o.Expired = res.PastDeadline(now)
		out.Reservations = append(out.Reservations, o)
	}
	if len(reservations) == p.Limit {
		out.NextAfter = reservations[len(reservations)-1].ID
	}
	writeJSON(w, http.StatusOK, out)
}

// reservationListParams reads the cursor, the page size and the filters
// of GET /v1/reservations.
func reservationListParams(q url.Values) (store.ReservationListParams, *stockd.Error) {
	page, verr := documentPage(q, "")
	if verr != nil {
		return store.ReservationListParams{}, verr
	}
	p := store.ReservationListParams{After: page.After, Limit: page.Limit}
	if q.Has("status") {
		p.Status = stockd.ReservationStatus(q.Get("status"))
		switch p.Status {
		case stockd.StatusPending, stockd.StatusConfirmed, stockd.StatusReleased, stockd.StatusExpired, stockd.StatusFulfilled:
		default:
			return p, stockd.InvalidField("status", "must be one of pending, confirmed, released, expired, fulfilled")
		}
	}
	for _, f := range []struct {
		name string
		to   *string
	}{{"sku", &p.SKU}, {"customer_id", &p.CustomerID}} {
		*f.to = q.Get(f.name)
		if q.Has(f.name) && !stockd.ValidIdentifier(*f.to) {
			return p, stockd.InvalidField(f.name, "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax)
		}
	}
	p.OrderID = q.Get("order_id")
	if q.Has("order_id") && (p.OrderID == "" || len(p.OrderID) > stockd.OrderIDLengthMax || !stockd.PlainText(p.OrderID)) {
		return p, stockd.InvalidField("order_id", "must be 1-%d bytes of UTF-8 text without control characters", stockd.OrderIDLengthMax)
	}
	if q.Has("created_before") {
		t, err := time.Parse(time.RFC3339Nano, q.Get("created_before"))
		if err != nil {
			return p, stockd.InvalidField("created_before", "must be an RFC 3339 time")
		}
		if p.CreatedBefore, verr = stockd.NormalizeTime("created_before", t); verr != nil {
			return p, verr
		}
	}
	return p, nil
}

func (s *Server) getReservationByKey(w http.ResponseWriter, r *http.Request) {
	key := r.URL.Query().Get("key")
	if !stockd.ValidIdempotencyKey(key) {
		writeProblem(w, stockd.InvalidField("key", "must be 1-%d printable ASCII characters", stockd.IdempotencyKeyLengthMax))
		return
	}
	// The caller's own reservation first, then one made before keys were
	// scoped or while the server ran open (stockd.Command.LookupKeys).
	var res stockd.Reservation
	err := stockd.ErrNotFound
	for _, k := range (&stockd.Command{IdempotencyKey: stockd.ScopedKey(actingKeyID(r), key)}).LookupKeys() {
		if res, err = s.store.ReservationGetByKey(r.Context(), k); !errors.Is(err, stockd.ErrNotFound) {
			break
		}
	}
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
	out := reservationOut(res)
	out.Expired = res.PastDeadline(s.now())
	writeJSON(w, http.StatusOK, out)
}
