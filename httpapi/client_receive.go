package httpapi

import (
	"context"
	"net/http"
)

// ReceiveParams are the arguments of Client.Receive. Location and Pool
// default to the server's ("default", "normal").
type ReceiveParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	Pool           string
	Quantity       int64
	Reference      string
}

// Receive adds Quantity to on_hand and returns the position after.
func (c *Client) Receive(ctx context.Context, p ReceiveParams) (Position, error) {
	var out Position
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/receipts", key: keyOrRandom(p.IdempotencyKey),
		body: receiptRequest{SKU: p.SKU, Location: p.Location, Pool: p.Pool, Quantity: &p.Quantity, Reference: p.Reference},
		out:  &out,
	})
	out.Replayed = replayed
	return out, err
}
