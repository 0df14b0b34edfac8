package httpapi

import (
	"context"
	"net/http"
)

// ShipParams are the arguments of Client.Ship.
type ShipParams struct {
	IdempotencyKey string
	Lines          []ShipmentLine
	Reference      string
}

// Ship takes stock of SKUs that deduct at shipment out of on_hand.
func (c *Client) Ship(ctx context.Context, p ShipParams) (Shipment, error) {
	req := shipmentRequest{Reference: p.Reference}
	for _, l := range p.Lines {
		req.Lines = append(req.Lines, stockLineRequest{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: &l.Quantity})
	}
	var out Shipment
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/shipments", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out})
	out.Replayed = replayed
	return out, err
}
