package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// ExtendParams are the arguments of Client.Extend: the hold's new deadline
// is TTL from now (whole seconds), never earlier than the one it has.
type ExtendParams struct {
	IdempotencyKey string
	ID             string
	TTL            time.Duration
}

// Extend moves a pending reservation's deadline later.
func (c *Client) Extend(ctx context.Context, p ExtendParams) (Reservation, error) {
	seconds := int64(p.TTL / time.Second)
	var out Reservation
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/reservations/" + url.PathEscape(p.ID) + "/extend",
		key: keyOrRandom(p.IdempotencyKey), body: extendRequest{TTLSeconds: &seconds}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}
