package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/stockd/stockd"
)

// GetReplenishment reads one SKU's reorder figures; an empty asOf is
// today's business date.
func (c *Client) GetReplenishment(ctx context.Context, sku, asOf string) (Replenishment, error) {
	var out Replenishment
	q := url.Values{}
	if asOf != "" {
		q.Set("as_of", asOf)
	}
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/replenishment/" + url.PathEscape(sku) + query(q), out: &out})
	return out, err
}

// GetReplenishmentAt reads one SKU's reorder figures at one location (GET
// /v1/replenishment/{sku}?location=L): the location's own sales and stock.
// The SKU must have demand_by_location set; asOf may be empty (today).
func (c *Client) GetReplenishmentAt(ctx context.Context, sku, location, asOf string) (Replenishment, error) {
	var out Replenishment
	q := url.Values{"location": {location}}
	if asOf != "" {
		q.Set("as_of", asOf)
	}
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/replenishment/" + url.PathEscape(sku) + query(q), out: &out})
	return out, err
}

// ListReplenishmentParams select a page of GET /v1/replenishment; zero
// fields are left out.
type ListReplenishmentParams struct {
	AsOf   string
	Status string
	After  string
	Limit  int
}

// ListReplenishment reads one page of SKUs' reorder figures.
func (c *Client) ListReplenishment(ctx context.Context, p ListReplenishmentParams) (ReplenishmentList, error) {
	q := url.Values{}
	for name, v := range map[string]string{"as_of": p.AsOf, "status": p.Status, "after": p.After} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var out ReplenishmentList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/replenishment" + query(q), out: &out})
	return out, err
}

// UpdateReplenishmentDefaults changes the deployment's defaults; a nil
// field is left unchanged.
func (c *Client) UpdateReplenishmentDefaults(ctx context.Context, idempotencyKey string, d stockd.ReplenishmentDefaults) (ReplenishmentDefaults, error) {
	var out ReplenishmentDefaults
	replayed, err := c.do(ctx, call{
		method: http.MethodPatch, path: "/v1/settings/replenishment", key: keyOrRandom(idempotencyKey), body: d, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// GetReplenishmentDefaults reads the deployment's defaults in effect; their
// ETag is what UpdateReplenishmentDefaultsIf takes.
func (c *Client) GetReplenishmentDefaults(ctx context.Context) (ReplenishmentDefaults, error) {
	var out ReplenishmentDefaults
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/settings/replenishment", out: &out, etag: &out.ETag})
	return out, err
}

// UpdateReplenishmentDefaultsIf is UpdateReplenishmentDefaults applied
// only if the defaults are still at the version ifMatch names (their ETag
// as last read), else precondition_failed.
func (c *Client) UpdateReplenishmentDefaultsIf(ctx context.Context, idempotencyKey, ifMatch string, d stockd.ReplenishmentDefaults) (ReplenishmentDefaults, error) {
	var out ReplenishmentDefaults
	replayed, err := c.do(ctx, call{
		method: http.MethodPatch, path: "/v1/settings/replenishment", key: keyOrRandom(idempotencyKey), body: d, out: &out,
		ifMatch: ifMatch, etag: &out.ETag,
	})
	out.Replayed = replayed
	return out, err
}

// ImportDemandHistory stores past daily demand, at most
// stockd.DemandHistoryRowsMax rows a call.
func (c *Client) ImportDemandHistory(ctx context.Context, rows []stockd.DemandDay) (DemandHistoryImported, error) {
	var out DemandHistoryImported
	_, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/demand-history", body: DemandHistoryImport{Rows: rows}, out: &out})
	return out, err
}

func query(q url.Values) string {
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}
