package httpapi

import (
	"context"
	"net/http"
)

// ReturnLine names a reservation line by SKU (and location and pool when
// the SKU is on several lines) and the quantity to give back.
type ReturnLine struct {
	SKU      string
	Location string
	Pool     string
	Quantity int64
}

// ReturnParams are the arguments of Client.Return.
type ReturnParams struct {
	IdempotencyKey string
	ReservationID  string
	Lines          []ReturnLine
	// Restock puts units returned after shipment straight back into
	// available instead of quarantine.
	Restock   bool
	Reference string
}

// Return refunds (confirmed reservation) or returns (fulfilled one) stock.
func (c *Client) Return(ctx context.Context, p ReturnParams) (ReturnReceipt, error) {
	req := returnRequest{ReservationID: p.ReservationID, Restock: p.Restock, Reference: p.Reference}
	for _, l := range p.Lines {
		req.Lines = append(req.Lines, returnLineRequest{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: &l.Quantity})
	}
	var out ReturnReceipt
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/returns", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out})
	out.Replayed = replayed
	return out, err
}

// QuarantineParams are the arguments of Client.ReleaseQuarantine and
// Client.ScrapQuarantine. Reason is for scrap only (damage by default).
type QuarantineParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	Pool           string
	Quantity       int64
	Reason         string
	Reference      string
}

// ReleaseQuarantine makes quarantined units available again.
func (c *Client) ReleaseQuarantine(ctx context.Context, p QuarantineParams) (Position, error) {
	return c.position(ctx, "/v1/quarantine/release", p.IdempotencyKey, quarantineRequest{
		SKU: p.SKU, Location: p.Location, Pool: p.Pool, Quantity: &p.Quantity, Reference: p.Reference,
	})
}

// ScrapQuarantine takes quarantined units out of on_hand.
func (c *Client) ScrapQuarantine(ctx context.Context, p QuarantineParams) (Position, error) {
	return c.position(ctx, "/v1/quarantine/scrap", p.IdempotencyKey, quarantineRequest{
		SKU: p.SKU, Location: p.Location, Pool: p.Pool, Quantity: &p.Quantity, Reason: p.Reason, Reference: p.Reference,
	})
}

// MoveParams are the arguments of Client.Move: From and To are available
// or quarantined.
type MoveParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	Pool           string
	From           string
	To             string
	Quantity       int64
	Reference      string
}

// Move shifts units between available and quarantined.
func (c *Client) Move(ctx context.Context, p MoveParams) (Position, error) {
	return c.position(ctx, "/v1/moves", p.IdempotencyKey, moveRequest{
		SKU: p.SKU, Location: p.Location, Pool: p.Pool, From: p.From, To: p.To, Quantity: &p.Quantity, Reference: p.Reference,
	})
}

func (c *Client) position(ctx context.Context, path, key string, body any) (Position, error) {
	var out Position
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: path, key: keyOrRandom(key), body: body, out: &out})
	out.Replayed = replayed
	return out, err
}
