package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// LedgerParams select a page of the ledger. Zero values mean every SKU,
// from the start, and the server's default page size; each filter left
// empty (or zero) selects all.
type LedgerParams struct {
	SKU   string
	After int64
	Limit int

	Type          string
	BusinessID    string
	ReservationID string
	Location      string
	From, To      time.Time
}

// Ledger reads one page of ledger entries; pass NextAfter as After for the
// next.
func (c *Client) Ledger(ctx context.Context, p LedgerParams) (LedgerPage, error) {
	q := pageQuery(p.After, p.Limit)
	for name, v := range map[string]string{"sku": p.SKU, "type": p.Type, "business_id": p.BusinessID, "reservation_id": p.ReservationID, "location": p.Location} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if !p.From.IsZero() {
		q.Set("from", p.From.UTC().Format(time.RFC3339Nano))
	}
	if !p.To.IsZero() {
		q.Set("to", p.To.UTC().Format(time.RFC3339Nano))
	}
	var out LedgerPage
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/ledger?" + q.Encode(), out: &out})
	return out, err
}

// EventsParams select a page of events.
type EventsParams struct {
	After int64
	Limit int
}

// Events reads one page of the outbox; pass NextAfter as After for the next.
func (c *Client) Events(ctx context.Context, p EventsParams) (EventPage, error) {
	var out EventPage
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/events?" + pageQuery(p.After, p.Limit).Encode(), out: &out})
	return out, err
}

func pageQuery(after int64, limit int) url.Values {
	q := url.Values{"after": {strconv.FormatInt(after, 10)}}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return q
}
