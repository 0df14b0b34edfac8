package httpapi

import (
	"context"
	"net/http"
	"net/url"
)

// CreateSKUParams are the arguments of Client.CreateSKU. An empty
// IdempotencyKey is replaced by a random one.
type CreateSKUParams struct {
	IdempotencyKey string
	SKU            string
	Name           string
	Unit           string
	// Deduction is at_order (the default), at_payment or at_shipment.
	Deduction string
	// ApprovalThreshold of zero means the server's default.
	ApprovalThreshold int64
	// Bundle creates a bundle SKU (see CreateBundle).
	Bundle bool
}

// CreateSKU creates a SKU.
func (c *Client) CreateSKU(ctx context.Context, p CreateSKUParams) (SKU, error) {
	var out SKU
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/skus", key: keyOrRandom(p.IdempotencyKey),
		body: skuRequest{SKU: p.SKU, Name: p.Name, Unit: p.Unit, Deduction: p.Deduction, ApprovalThreshold: optional(p.ApprovalThreshold), Bundle: p.Bundle}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// GetSKU reads a SKU.
func (c *Client) GetSKU(ctx context.Context, sku string) (SKU, error) {
	var out SKU
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/skus/" + url.PathEscape(sku), out: &out, etag: &out.ETag})
	return out, err
}

// optional sends zero as absent.
func optional(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}
