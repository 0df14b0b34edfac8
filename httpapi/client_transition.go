package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// ConfirmParams are the arguments of Client.Confirm. OnLate says what a
// confirm after the deadline does: "exception" (the default: 409
// reservation_expired naming the exception recorded, see
// stockd.Error.ExceptionID) or "re_reserve" (reserve and confirm the same
// lines again when the stock is there; Reservation.ReReserved says so).
// PaymentReference (at most 128 bytes) and PaidAt are kept by the
// exception.
type ConfirmParams struct {
	IdempotencyKey   string
	ID               string
	OnLate           string
	PaymentReference string
	PaidAt           *time.Time
}

// Confirm moves a pending reservation to confirmed (reserved → committed).
func (c *Client) Confirm(ctx context.Context, p ConfirmParams) (Reservation, error) {
	var body any
	if p.OnLate != "" || p.PaymentReference != "" || p.PaidAt != nil {
		body = confirmRequest{OnLate: p.OnLate, PaymentReference: p.PaymentReference, PaidAt: p.PaidAt}
	}
	return c.transition(ctx, p.ID, "confirm", p.IdempotencyKey, body)
}

// ReleaseParams are the arguments of Client.Release. Reason is one of
// cancelled (the default), payment_failed, risk_rejected, other.
type ReleaseParams struct {
	IdempotencyKey string
	ID             string
	Reason         string
}

// Release moves a pending reservation to released (reserved → available).
func (c *Client) Release(ctx context.Context, p ReleaseParams) (Reservation, error) {
	var body any
	if p.Reason != "" {
		body = releaseRequest{Reason: p.Reason}
	}
	return c.transition(ctx, p.ID, "release", p.IdempotencyKey, body)
}

// FulfilParams are the arguments of Client.Fulfil.
type FulfilParams struct {
	IdempotencyKey string
	ID             string
	// Lines, when given, ship only these quantities of the reservation's
	// lines (a line named by its SKU, and location and pool where the SKU
	// sits on several); empty ships everything left.
	Lines []FulfilLine
	// Reference, with Lines only, is the shipment's business number (a
	// delivery note): the same one again is refused, not shipped twice.
	Reference string
}

// FulfilLine is one line of a partial shipment.
type FulfilLine struct {
	SKU      string
	Location string
	Pool     string
	Quantity int64
}

// Fulfil ships a confirmed reservation: everything left (it is then
// fulfilled), or the quantities of Lines (it stays confirmed until nothing
// is left to ship). Committed stock leaves on_hand.
func (c *Client) Fulfil(ctx context.Context, p FulfilParams) (Reservation, error) {
	var body any
	if len(p.Lines) > 0 {
		req := fulfilRequest{Reference: p.Reference}
		for _, l := range p.Lines {
			q := l.Quantity
			req.Lines = append(req.Lines, returnLineRequest{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: &q})
		}
		body = req
	}
	return c.transition(ctx, p.ID, "fulfil", p.IdempotencyKey, body)
}

func (c *Client) transition(ctx context.Context, id, verb, key string, body any) (Reservation, error) {
	var out Reservation
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/reservations/" + url.PathEscape(id) + "/" + verb,
		key: keyOrRandom(key), body: body, out: &out,
	})
	out.Replayed = replayed
	return out, err
}
