package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// PurchaseOrderLineParams is one line of a purchase order or a receipt.
type PurchaseOrderLineParams struct {
	SKU      string
	Location string
	Quantity int64
}

// CreatePurchaseOrderParams are the arguments of Client.CreatePurchaseOrder.
// An empty ID lets the server choose one.
type CreatePurchaseOrderParams struct {
	IdempotencyKey string
	ID             string
	Supplier       string
	ExpectedAt     time.Time
	Lines          []PurchaseOrderLineParams
	Reference      string
}

func poLinesRequest(lines []PurchaseOrderLineParams) []purchaseOrderLineRequest {
	out := make([]purchaseOrderLineRequest, 0, len(lines))
	for _, l := range lines {
		out = append(out, purchaseOrderLineRequest{SKU: l.SKU, Location: l.Location, Quantity: &l.Quantity})
	}
	return out
}

// CreatePurchaseOrder records stock expected from a supplier as incoming.
func (c *Client) CreatePurchaseOrder(ctx context.Context, p CreatePurchaseOrderParams) (PurchaseOrder, error) {
	var out PurchaseOrder
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/purchase-orders", key: keyOrRandom(p.IdempotencyKey), body: purchaseOrderRequest{
		ID: p.ID, Supplier: p.Supplier, ExpectedAt: &p.ExpectedAt, Lines: poLinesRequest(p.Lines), Reference: p.Reference,
	}, out: &out})
	out.Replayed = replayed
	return out, err
}

// ReceivePurchaseOrderParams are the arguments of
// Client.ReceivePurchaseOrder.
type ReceivePurchaseOrderParams struct {
	IdempotencyKey string
	OrderID        string
	Lines          []PurchaseOrderLineParams
	Reference      string
}

// ReceivePurchaseOrder moves what arrived from incoming into on_hand.
func (c *Client) ReceivePurchaseOrder(ctx context.Context, p ReceivePurchaseOrderParams) (PurchaseOrder, error) {
	var out PurchaseOrder
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/purchase-orders/" + url.PathEscape(p.OrderID) + "/receipts", key: keyOrRandom(p.IdempotencyKey),
		body: purchaseOrderReceiptRequest{Lines: poLinesRequest(p.Lines), Reference: p.Reference}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// CancelPurchaseOrder takes what an order still expects out of incoming.
func (c *Client) CancelPurchaseOrder(ctx context.Context, id, key string) (PurchaseOrder, error) {
	var out PurchaseOrder
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/purchase-orders/" + url.PathEscape(id) + "/cancel", key: keyOrRandom(key),
		body: emptyRequest{}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// GetPurchaseOrder reads a purchase order.
func (c *Client) GetPurchaseOrder(ctx context.Context, id string) (PurchaseOrder, error) {
	var out PurchaseOrder
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/purchase-orders/" + url.PathEscape(id), out: &out})
	return out, err
}

// PurchaseOrders reads one page of purchase orders, only those in status
// unless it is empty, after the cursor after ("" for the first); limit 0
// means the server's default.
func (c *Client) PurchaseOrders(ctx context.Context, status, after string, limit int) (PurchaseOrderList, error) {
	q := url.Values{}
	if status != "" {
		q.Set("status", status)
	}
	var out PurchaseOrderList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/purchase-orders" + documentQuery(q, after, limit), out: &out})
	return out, err
}
