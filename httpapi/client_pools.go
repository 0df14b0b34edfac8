package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// CreatePoolParams are the arguments of Client.CreatePool. A campaign
// needs StartsAt and EndsAt; a channel has neither.
type CreatePoolParams struct {
	IdempotencyKey   string
	Pool             string
	Kind             string // channel or campaign
	Name             string
	FallbackToNormal bool
	StartsAt         *time.Time
	EndsAt           *time.Time
}

// CreatePool creates a channel or campaign pool.
func (c *Client) CreatePool(ctx context.Context, p CreatePoolParams) (Pool, error) {
	var out Pool
	_, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/pools", key: keyOrRandom(p.IdempotencyKey),
		body: poolRequest{Pool: p.Pool, Kind: p.Kind, Name: p.Name, FallbackToNormal: p.FallbackToNormal, StartsAt: p.StartsAt, EndsAt: p.EndsAt},
		out:  &out,
	})
	return out, err
}

// GetPool reads a pool.
func (c *Client) GetPool(ctx context.Context, pool string) (Pool, error) {
	var out Pool
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/pools/" + url.PathEscape(pool), out: &out})
	return out, err
}

// Pools reads one page of pools after the cursor after ("" for the first);
// limit 0 means the server's default.
func (c *Client) Pools(ctx context.Context, after string, limit int) (PoolList, error) {
	var out PoolList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/pools" + documentQuery(nil, after, limit), out: &out})
	return out, err
}

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

// CloseCampaign returns a campaign's leftovers to normal and closes it.
func (c *Client) CloseCampaign(ctx context.Context, idempotencyKey, pool string) (Pool, error) {
	var out Pool
	_, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/campaigns/" + url.PathEscape(pool) + "/close", key: keyOrRandom(idempotencyKey), out: &out,
	})
	return out, err
}

// UpdateLocationParams are the arguments of Client.UpdateLocation; a nil
// field is left unchanged.
type UpdateLocationParams struct {
	IdempotencyKey string
	Location       string
	Name           *string
	Priority       *int64
	Active         *bool
}

// UpdateLocation changes a location's settings.
func (c *Client) UpdateLocation(ctx context.Context, p UpdateLocationParams) (Location, error) {
	var out Location
	replayed, err := c.do(ctx, call{
		method: http.MethodPatch, path: "/v1/locations/" + url.PathEscape(p.Location), key: keyOrRandom(p.IdempotencyKey),
		body: locationUpdateRequest{Name: p.Name, Priority: p.Priority, Active: p.Active}, out: &out,
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
}

// UpdateSKU changes a SKU's settings.
func (c *Client) UpdateSKU(ctx context.Context, p UpdateSKUParams) (SKU, error) {
	var out SKU
	replayed, err := c.do(ctx, call{
		method: http.MethodPatch, path: "/v1/skus/" + url.PathEscape(p.SKU), key: keyOrRandom(p.IdempotencyKey),
		body: skuUpdateRequest{Name: p.Name, Deduction: p.Deduction, ApprovalThreshold: p.ApprovalThreshold}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// GetApproval reads an approval.
func (c *Client) GetApproval(ctx context.Context, id string) (Approval, error) {
	var out Approval
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/approvals/" + url.PathEscape(id), out: &out})
	return out, err
}

// Approvals reads one page of approvals, only those in status unless it is
// empty, after the cursor after ("" for the first); limit 0 means the
// server's default.
func (c *Client) Approvals(ctx context.Context, status, after string, limit int) (ApprovalList, error) {
	var out ApprovalList
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/approvals" + documentQuery(q, after, limit), out: &out})
	return out, err
}

// Approve applies a pending adjustment requested by another key.
func (c *Client) Approve(ctx context.Context, idempotencyKey, id string) (Approval, error) {
	return c.decideApproval(ctx, idempotencyKey, id, "approve")
}

// Reject records the rejection of a pending adjustment.
func (c *Client) Reject(ctx context.Context, idempotencyKey, id string) (Approval, error) {
	return c.decideApproval(ctx, idempotencyKey, id, "reject")
}

func (c *Client) decideApproval(ctx context.Context, idempotencyKey, id, verb string) (Approval, error) {
	var out Approval
	_, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/approvals/" + url.PathEscape(id) + "/" + verb, key: keyOrRandom(idempotencyKey), out: &out,
	})
	return out, err
}

// documentQuery renders q with the page cursor and size, "" when empty.
func documentQuery(q url.Values, after string, limit int) string {
	if q == nil {
		q = url.Values{}
	}
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}
