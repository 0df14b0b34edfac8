package httpapi

import (
	"context"
	"net/http"
	"net/url"
)

// Stock reads every position of a SKU.
func (c *Client) Stock(ctx context.Context, sku string) (Stock, error) {
	var out Stock
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/stock/" + url.PathEscape(sku), out: &out})
	return out, err
}
