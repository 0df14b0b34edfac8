package httpapi

import (
	"context"
	"net/http"
	"net/url"

	"github.com/stockd/stockd"
)

// UpdateLocationParams are the arguments of Client.UpdateLocation; a nil
// field is left unchanged.
type UpdateLocationParams struct {
	IdempotencyKey string
	Location       string
	Name           *string
	Priority       *int64
	Active         *bool
	// IfMatch, when set, is the ETag of the location as last read
	// (Location.ETag): the change applies only if no one changed the
	// location since, else precondition_failed.
	IfMatch string
}

// UpdateLocation changes a location's settings.
func (c *Client) UpdateLocation(ctx context.Context, p UpdateLocationParams) (Location, error) {
	var out Location
	replayed, err := c.do(ctx, call{
		method: http.MethodPatch, path: "/v1/locations/" + url.PathEscape(p.Location), key: keyOrRandom(p.IdempotencyKey),
		body: locationUpdateRequest{Name: p.Name, Priority: p.Priority, Active: p.Active}, out: &out,
		ifMatch: p.IfMatch, etag: &out.ETag,
	})
	out.Replayed = replayed
	return out, err
}

// UpdateSKUParams are the arguments of Client.UpdateSKU; a nil field is
// left unchanged.
type UpdateSKUParams struct {
	IdempotencyKey    string
	SKU               string
	Name              *string
	Deduction         *string
	ApprovalThreshold *int64
	// Replenishment changes the replenishment settings it sets.
	Replenishment stockd.ReplenishmentSettings
	// IfMatch, when set, is the ETag of the SKU as last read (SKU.ETag).
	IfMatch string
}

// UpdateSKU changes a SKU's settings.
func (c *Client) UpdateSKU(ctx context.Context, p UpdateSKUParams) (SKU, error) {
	var out SKU
	replayed, err := c.do(ctx, call{
		method: http.MethodPatch, path: "/v1/skus/" + url.PathEscape(p.SKU), key: keyOrRandom(p.IdempotencyKey),
		body: skuUpdateRequest{Name: p.Name, Deduction: p.Deduction, ApprovalThreshold: p.ApprovalThreshold, ReplenishmentSettings: p.Replenishment}, out: &out,
		ifMatch: p.IfMatch, etag: &out.ETag,
	})
	out.Replayed = replayed
	return out, err
}
