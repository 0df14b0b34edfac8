package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// ExceptionsParams select a page of exceptions. Zero values mean no
// filter, from the start, and the server's default page size.
type ExceptionsParams struct {
	Kind   string
	Status string
	After  string
	Limit  int
}

// Exceptions reads one page of exceptions in handling order; pass
// NextAfter as After for the next.
func (c *Client) Exceptions(ctx context.Context, p ExceptionsParams) (ExceptionPage, error) {
	q := url.Values{}
	for name, v := range map[string]string{"kind": p.Kind, "status": p.Status, "after": p.After} {
		if v != "" {
			q.Set(name, v)
		}
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var out ExceptionPage
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/exceptions?" + q.Encode(), out: &out})
	return out, err
}

// Exception reads one exception.
func (c *Client) Exception(ctx context.Context, id string) (Exception, error) {
	var out Exception
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/exceptions/" + url.PathEscape(id), out: &out})
	return out, err
}

// ResolveExceptionParams are the arguments of Client.ResolveException.
type ResolveExceptionParams struct {
	IdempotencyKey string
	ID             string
	// Note says what was done (refunded, shipped from elsewhere). Required.
	Note string
}

// ResolveException closes an exception with a note; resolving a resolved
// one answers it unchanged (the first note stands).
func (c *Client) ResolveException(ctx context.Context, p ResolveExceptionParams) (Exception, error) {
	var out Exception
	_, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/exceptions/" + url.PathEscape(p.ID) + "/resolve",
		key: keyOrRandom(p.IdempotencyKey), body: exceptionResolveRequest{Note: p.Note}, out: &out,
	})
	return out, err
}
