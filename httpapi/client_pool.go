package httpapi

import (
	"context"
	"net/http"
	"net/url"
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
