package httpapi

import (
	"context"
	"net/http"
)

// AllocateParams are the arguments of Client.Allocate. Empty Location and
// FromPool mean the default location and the normal pool.
type AllocateParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	FromPool       string
	ToPool         string
	Quantity       int64
	Reference      string
}

// Allocate moves available stock from one pool to another.
func (c *Client) Allocate(ctx context.Context, p AllocateParams) (Allocation, error) {
	var out Allocation
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/allocations", key: keyOrRandom(p.IdempotencyKey),
		body: allocationRequest{SKU: p.SKU, Location: p.Location, FromPool: p.FromPool, ToPool: p.ToPool, Quantity: &p.Quantity, Reference: p.Reference},
		out:  &out,
	})
	out.Replayed = replayed
	return out, err
}
