package httpapi

import (
	"context"
	"net/http"
	"net/url"
)

// TransferParams are the arguments of Client.Transfer.
type TransferParams struct {
	IdempotencyKey string
	SKU            string
	FromLocation   string
	ToLocation     string
	Pool           string
	Quantity       int64
	Reference      string
}

// Transfer sends stock from one location into another's in_transit.
func (c *Client) Transfer(ctx context.Context, p TransferParams) (Transfer, error) {
	var out Transfer
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/transfers", key: keyOrRandom(p.IdempotencyKey), body: transferRequest{
		SKU: p.SKU, FromLocation: p.FromLocation, ToLocation: p.ToLocation, Pool: p.Pool, Quantity: &p.Quantity, Reference: p.Reference,
	}, out: &out})
	out.Replayed = replayed
	return out, err
}

// ReceiveTransferParams are the arguments of Client.ReceiveTransfer.
type ReceiveTransferParams struct {
	IdempotencyKey string
	TransferID     string
	Quantity       int64
	Reference      string
}

// ReceiveTransfer brings part of a transfer into its target's on_hand.
func (c *Client) ReceiveTransfer(ctx context.Context, p ReceiveTransferParams) (Transfer, error) {
	var out Transfer
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/transfers/" + url.PathEscape(p.TransferID) + "/receipts", key: keyOrRandom(p.IdempotencyKey),
		body: quantityRequest{Quantity: &p.Quantity, Reference: p.Reference}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// CancelTransfer sends what a transfer still has in transit back to its
// source.
func (c *Client) CancelTransfer(ctx context.Context, id, key string) (Transfer, error) {
	var out Transfer
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/transfers/" + url.PathEscape(id) + "/cancel", key: keyOrRandom(key),
		body: emptyRequest{}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// GetTransfer reads a transfer.
func (c *Client) GetTransfer(ctx context.Context, id string) (Transfer, error) {
	var out Transfer
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/transfers/" + url.PathEscape(id), out: &out})
	return out, err
}

// Transfers reads one page of transfers after the cursor after ("" for
// the first); limit 0 means the server's default.
func (c *Client) Transfers(ctx context.Context, after string, limit int) (TransferList, error) {
	var out TransferList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/transfers" + documentQuery(url.Values{}, after, limit), out: &out})
	return out, err
}
