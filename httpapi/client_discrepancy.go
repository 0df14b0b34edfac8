package httpapi

import (
	"context"
	"net/http"
	"strconv"
)

// DiscrepanciesParams select a page of discrepancies. Zero values mean no
// filter, from the start, and the server's default page size.
type DiscrepanciesParams struct {
	Status string
	Kind   string
	SKU    string
	After  int64
	Limit  int
}

// Discrepancies reads one page of what the reconciliation passes found;
// pass NextAfter as After for the next.
func (c *Client) Discrepancies(ctx context.Context, p DiscrepanciesParams) (DiscrepancyPage, error) {
	q := pageQuery(p.After, p.Limit)
	for name, v := range map[string]string{"status": p.Status, "kind": p.Kind, "sku": p.SKU} {
		if v != "" {
			q.Set(name, v)
		}
	}
	var out DiscrepancyPage
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/discrepancies?" + q.Encode(), out: &out})
	return out, err
}

// Discrepancy reads one discrepancy.
func (c *Client) Discrepancy(ctx context.Context, id int64) (Discrepancy, error) {
	var out Discrepancy
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/discrepancies/" + strconv.FormatInt(id, 10), out: &out})
	return out, err
}
