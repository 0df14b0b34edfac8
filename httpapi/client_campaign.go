package httpapi

import (
	"context"
	"net/http"
	"net/url"
)

// CloseCampaign returns a campaign's leftovers to normal and closes it.
func (c *Client) CloseCampaign(ctx context.Context, idempotencyKey, pool string) (Pool, error) {
	var out Pool
	_, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/campaigns/" + url.PathEscape(pool) + "/close", key: keyOrRandom(idempotencyKey), out: &out,
	})
	return out, err
}
