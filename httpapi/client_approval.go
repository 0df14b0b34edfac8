package httpapi

import (
	"context"
	"net/http"
	"net/url"
)

// GetApproval reads an approval.
func (c *Client) GetApproval(ctx context.Context, id string) (Approval, error) {
	var out Approval
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/approvals/" + url.PathEscape(id), out: &out})
	return out, err
}

// Approvals reads one page of approvals, only those in status unless it is
// empty, after the cursor after ("" for the first); limit 0 means the
// server's default.
func (c *Client) Approvals(ctx context.Context, status, after string, limit int) (ApprovalList, error) {
	var out ApprovalList
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/approvals" + documentQuery(q, after, limit), out: &out})
	return out, err
}

// Approve applies a pending adjustment requested by another key.
func (c *Client) Approve(ctx context.Context, idempotencyKey, id string) (Approval, error) {
	return c.decideApproval(ctx, idempotencyKey, id, "approve")
}

// Reject records the rejection of a pending adjustment.
func (c *Client) Reject(ctx context.Context, idempotencyKey, id string) (Approval, error) {
	return c.decideApproval(ctx, idempotencyKey, id, "reject")
}

func (c *Client) decideApproval(ctx context.Context, idempotencyKey, id, verb string) (Approval, error) {
	var out Approval
	_, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/approvals/" + url.PathEscape(id) + "/" + verb, key: keyOrRandom(idempotencyKey), out: &out,
	})
	return out, err
}
