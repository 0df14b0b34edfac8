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
}

// Fulfil moves a confirmed reservation to fulfilled (committed leaves
// on_hand: shipped).
func (c *Client) Fulfil(ctx context.Context, p FulfilParams) (Reservation, error) {
	return c.transition(ctx, p.ID, "fulfil", p.IdempotencyKey, nil)
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
