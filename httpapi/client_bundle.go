package httpapi

import (
	"context"
	"net/http"
	"net/url"
)

// CreateBundleParams are the arguments of Client.CreateBundle. An empty
// IdempotencyKey is replaced by a random one.
type CreateBundleParams struct {
	IdempotencyKey string
	Bundle         string
	Components     []BundleComponent
}

// CreateBundle defines a bundle SKU by its components, once.
func (c *Client) CreateBundle(ctx context.Context, p CreateBundleParams) (Bundle, error) {
	req := bundleRequest{Bundle: p.Bundle, Components: make([]bundleComponentRequest, len(p.Components))}
	for i, comp := range p.Components {
		req.Components[i] = bundleComponentRequest{SKU: comp.SKU, Quantity: &comp.Quantity}
	}
	var out Bundle
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/bundles", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out})
	out.Replayed = replayed
	return out, err
}

// GetBundle reads a bundle's definition and availability.
func (c *Client) GetBundle(ctx context.Context, bundle string) (Bundle, error) {
	var out Bundle
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/bundles/" + url.PathEscape(bundle), out: &out})
	return out, err
}
