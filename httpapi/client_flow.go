package httpapi

import (
	"context"
	"net/http"
	"net/url"
	"time"
)

// Client calls of returns, quarantine, moves, shipments, transfers and
// purchase orders. An empty IdempotencyKey is replaced by a random one.

// ReturnLine names a reservation line by SKU (and location and pool when
// the SKU is on several lines) and the quantity to give back.
type ReturnLine struct {
	SKU      string
	Location string
	Pool     string
	Quantity int64
}

// ReturnParams are the arguments of Client.Return.
type ReturnParams struct {
	IdempotencyKey string
	ReservationID  string
	Lines          []ReturnLine
	// Restock puts units returned after shipment straight back into
	// available instead of quarantine.
	Restock   bool
	Reference string
}

// Return refunds (confirmed reservation) or returns (fulfilled one) stock.
func (c *Client) Return(ctx context.Context, p ReturnParams) (ReturnReceipt, error) {
	req := returnRequest{ReservationID: p.ReservationID, Restock: p.Restock, Reference: p.Reference}
	for _, l := range p.Lines {
		req.Lines = append(req.Lines, returnLineRequest{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: &l.Quantity})
	}
	var out ReturnReceipt
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/returns", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out})
	out.Replayed = replayed
	return out, err
}

// QuarantineParams are the arguments of Client.ReleaseQuarantine and
// Client.ScrapQuarantine. Reason is for scrap only (damage by default).
type QuarantineParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	Pool           string
	Quantity       int64
	Reason         string
	Reference      string
}

// ReleaseQuarantine makes quarantined units available again.
func (c *Client) ReleaseQuarantine(ctx context.Context, p QuarantineParams) (Position, error) {
	return c.position(ctx, "/v1/quarantine/release", p.IdempotencyKey, quarantineRequest{
		SKU: p.SKU, Location: p.Location, Pool: p.Pool, Quantity: &p.Quantity, Reference: p.Reference,
	})
}

// ScrapQuarantine takes quarantined units out of on_hand.
func (c *Client) ScrapQuarantine(ctx context.Context, p QuarantineParams) (Position, error) {
	return c.position(ctx, "/v1/quarantine/scrap", p.IdempotencyKey, quarantineRequest{
		SKU: p.SKU, Location: p.Location, Pool: p.Pool, Quantity: &p.Quantity, Reason: p.Reason, Reference: p.Reference,
	})
}

// MoveParams are the arguments of Client.Move: From and To are available
// or quarantined.
type MoveParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	Pool           string
	From           string
	To             string
	Quantity       int64
	Reference      string
}

// Move shifts units between available and quarantined.
func (c *Client) Move(ctx context.Context, p MoveParams) (Position, error) {
	return c.position(ctx, "/v1/moves", p.IdempotencyKey, moveRequest{
		SKU: p.SKU, Location: p.Location, Pool: p.Pool, From: p.From, To: p.To, Quantity: &p.Quantity, Reference: p.Reference,
	})
}

func (c *Client) position(ctx context.Context, path, key string, body any) (Position, error) {
	var out Position
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: path, key: keyOrRandom(key), body: body, out: &out})
	out.Replayed = replayed
	return out, err
}

// ShipParams are the arguments of Client.Ship.
type ShipParams struct {
	IdempotencyKey string
	Lines          []ShipmentLine
	Reference      string
}

// Ship takes stock of SKUs that deduct at shipment out of on_hand.
func (c *Client) Ship(ctx context.Context, p ShipParams) (Shipment, error) {
	req := shipmentRequest{Reference: p.Reference}
	for _, l := range p.Lines {
		req.Lines = append(req.Lines, stockLineRequest{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: &l.Quantity})
	}
	var out Shipment
	replayed, err := c.do(ctx, call{method: http.MethodPost, path: "/v1/shipments", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out})
	out.Replayed = replayed
	return out, err
}

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
