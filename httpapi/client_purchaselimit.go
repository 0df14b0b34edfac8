package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// SetLimitParams are the arguments of Client.SetLimit.
type SetLimitParams struct {
	IdempotencyKey string
	// Scope is sku or campaign; Target the SKU or the pool.
	Scope                  string
	Target                 string
	MaxQuantityPerCustomer int64
	WindowSeconds          int64
}

// SetLimit creates or replaces the purchase limit of a scope on a target.
func (c *Client) SetLimit(ctx context.Context, p SetLimitParams) (PurchaseLimit, error) {
	var out PurchaseLimit
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/limits", key: keyOrRandom(p.IdempotencyKey),
		body: limitRequest{Scope: p.Scope, Target: p.Target, MaxQuantityPerCustomer: &p.MaxQuantityPerCustomer, WindowSeconds: &p.WindowSeconds},
		out:  &out,
	})
	out.Replayed = replayed
	return out, err
}

// Limits reads one page of limits with ids after after ("" for the first);
// limit 0 means the server's default page size.
func (c *Client) Limits(ctx context.Context, after string, limit int) (LimitList, error) {
	q := url.Values{}
	if after != "" {
		q.Set("after", after)
	}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	path := "/v1/limits"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var out LimitList
	_, err := c.do(ctx, call{method: http.MethodGet, path: path, out: &out})
	return out, err
}
