package httpapi

import (
	"context"
	"net/http"
	"net/url"
)

// CreateLocationParams are the arguments of Client.CreateLocation.
type CreateLocationParams struct {
	IdempotencyKey string
	Location       string
	Name           string
	// Priority orders placement: lower is tried first.
	Priority int64
	// Inactive creates the location switched off for placement.
	Inactive bool
}

// CreateLocation creates a location.
func (c *Client) CreateLocation(ctx context.Context, p CreateLocationParams) (Location, error) {
	var out Location
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/locations", key: keyOrRandom(p.IdempotencyKey),
		body: locationRequest{Location: p.Location, Name: p.Name, Priority: &p.Priority, Active: inactiveFlag(p.Inactive)}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// Locations lists every location.
func (c *Client) Locations(ctx context.Context) ([]Location, error) {
	var out LocationList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/locations", out: &out})
	return out.Locations, err
}

// inactiveFlag sends active=false only when asked, leaving the server's
// default (active) otherwise.
func inactiveFlag(inactive bool) *bool {
	if !inactive {
		return nil
	}
	active := false
	return &active
}

// GetLocation reads a location; its ETag is what UpdateLocation's IfMatch
// takes.
func (c *Client) GetLocation(ctx context.Context, location string) (Location, error) {
	var out Location
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/locations/" + url.PathEscape(location), out: &out, etag: &out.ETag})
	return out, err
}
