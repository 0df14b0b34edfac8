package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// Stock reads every position of a SKU.
func (c *Client) Stock(ctx context.Context, sku string) (Stock, error) {
	var out Stock
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/stock/" + url.PathEscape(sku), out: &out})
	return out, err
}

// StockListParams select a page of GET /v1/stock: the cursor (the
// NextAfter of the previous page), the page size (the server's default
// when zero), and the filters, each left empty for all. Below keeps SKUs
// whose totals.available is under it when HasBelow is set.
type StockListParams struct {
	After          string
	Limit          int
	Location, Pool string
	Below          int64
	HasBelow       bool
}

// StockList reads one page of stock, SKU by SKU.
func (c *Client) StockList(ctx context.Context, p StockListParams) (StockList, error) {
	q := url.Values{}
	for name, v := range map[string]string{"location": p.Location, "pool": p.Pool} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if p.HasBelow {
		q.Set("below", strconv.FormatInt(p.Below, 10))
	}
	var out StockList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/stock" + documentQuery(q, p.After, p.Limit), out: &out})
	return out, err
}
