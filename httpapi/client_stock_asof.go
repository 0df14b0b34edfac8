package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// StockAsOf reads every position of a SKU as the ledger had booked it at.
func (c *Client) StockAsOf(ctx context.Context, sku string, at time.Time) (Stock, error) {
	var out Stock
	q := url.Values{"as_of": {at.UTC().Format(time.RFC3339Nano)}}
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/stock/" + url.PathEscape(sku) + "?" + q.Encode(), out: &out})
	return out, err
}
