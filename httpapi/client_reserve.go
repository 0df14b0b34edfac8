package httpapi

import (
	"context"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ReserveLine is one line of Client.Reserve; an empty Location lets the
// server pick the first location by priority that holds the whole line.
type ReserveLine struct {
	SKU      string
	Quantity int64
	Location string
	Pool     string
}

// ReserveParams are the arguments of Client.Reserve. A zero TTL means the
// server's default (15 minutes); a TTL is sent in whole seconds, rounded up.
type ReserveParams struct {
	IdempotencyKey string
	Lines          []ReserveLine
	TTL            time.Duration
	Commit         bool
	// Strategy is priority (the default), single_location or split.
	Strategy   string
	CustomerID string
	// OrderID is the order's business number; a second reservation for an
	// order that holds one is refused duplicate_order.
	OrderID string
}

// Reserve holds stock for every line or none.
func (c *Client) Reserve(ctx context.Context, p ReserveParams) (Reservation, error) {
	req := reservationRequest{
		Commit: p.Commit, Strategy: p.Strategy, CustomerID: p.CustomerID, OrderID: p.OrderID,
		Lines: make([]reservationLineRequest, 0, len(p.Lines)),
	}
	for _, l := range p.Lines {
		quantity := l.Quantity
		req.Lines = append(req.Lines, reservationLineRequest{SKU: l.SKU, Quantity: &quantity, Location: l.Location, Pool: l.Pool})
	}
	if p.TTL != 0 {
		seconds := int64(math.Ceil(p.TTL.Seconds()))
		req.TTLSeconds = &seconds
	}
	var out Reservation
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/reservations", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// GetReservation reads a reservation by id.
func (c *Client) GetReservation(ctx context.Context, id string) (Reservation, error) {
	var out Reservation
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/reservations/" + url.PathEscape(id), out: &out})
	return out, err
}

// GetReservationByKey reads the reservation made with an idempotency key:
// how a caller whose Reserve timed out learns what happened.
func (c *Client) GetReservationByKey(ctx context.Context, key string) (Reservation, error) {
	var out Reservation
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/reservations?" + url.Values{"key": {key}}.Encode(), out: &out})
	return out, err
}

// ListReservationsParams are the arguments of Client.ListReservations:
// the cursor (the NextAfter of the previous page), the page size (the
// server's default when zero) and the filters, each left empty for all.
type ListReservationsParams struct {
	After         string
	Limit         int
	Status        string
	SKU           string
	CustomerID    string
	OrderID       string
	CreatedBefore time.Time
}

// ListReservations reads one page of reservations.
func (c *Client) ListReservations(ctx context.Context, p ListReservationsParams) (ReservationList, error) {
	q := url.Values{}
	for name, v := range map[string]string{"after": p.After, "status": p.Status, "sku": p.SKU, "customer_id": p.CustomerID, "order_id": p.OrderID} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if p.Limit != 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if !p.CreatedBefore.IsZero() {
		q.Set("created_before", p.CreatedBefore.UTC().Format(time.RFC3339Nano))
	}
	var out ReservationList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/reservations?" + q.Encode(), out: &out})
	return out, err
}
