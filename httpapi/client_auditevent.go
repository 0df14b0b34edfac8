package httpapi

import (
	"context"
	"net/http"
)

// AuditEvents reads one page of the audit trail after the event id after
// (0 for the first); limit 0 means the server's default. It needs an
// admin key.
func (c *Client) AuditEvents(ctx context.Context, after int64, limit int) (AuditEventList, error) {
	var out AuditEventList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/audit-events?" + pageQuery(after, limit).Encode(), out: &out})
	return out, err
}
