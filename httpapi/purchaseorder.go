package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

func (s *Server) purchaseOrderRoutes() []route {
	return []route{
		{"POST /v1/purchase-orders", "purchase_order_create", stockd.ScopeStock, s.createPurchaseOrder},
		{"GET /v1/purchase-orders", "purchase_order_list", stockd.ScopeRead, s.listPurchaseOrders},
		{"GET /v1/purchase-orders/{id}", "purchase_order_get", stockd.ScopeRead, s.getPurchaseOrder},
		{"POST /v1/purchase-orders/{id}/receipts", "purchase_order_receipt_create", stockd.ScopeStock, s.createPurchaseOrderReceipt},
		{"POST /v1/purchase-orders/{id}/cancel", "purchase_order_cancel", stockd.ScopeStock, s.cancelPurchaseOrder},
	}
}

// PurchaseOrderLine is one (SKU, location) of a purchase order.
type PurchaseOrderLine struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Quantity int64  `json:"quantity"`
	Received int64  `json:"received"`
	// Open is what is still expected, shown as incoming while the order is
	// open.
	Open int64 `json:"open"`
}

// PurchaseOrder is an order to a supplier and what arrived so far.
type PurchaseOrder struct {
	ID         string              `json:"id"`
	Supplier   string              `json:"supplier"`
	ExpectedAt time.Time           `json:"expected_at"`
	Status     string              `json:"status"`
	Lines      []PurchaseOrderLine `json:"lines"`
	Receipts   int                 `json:"receipts"`
	Reference  string              `json:"reference,omitempty"`
	CreatedAt  time.Time           `json:"created_at"`
	UpdatedAt  time.Time           `json:"updated_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

type purchaseOrderLineRequest struct {
	SKU      string `json:"sku"`
	Location string `json:"location,omitempty"`
	Quantity *int64 `json:"quantity"`
}

type purchaseOrderRequest struct {
	ID         string                     `json:"id,omitempty"`
	Supplier   string                     `json:"supplier"`
	ExpectedAt *time.Time                 `json:"expected_at"`
	Lines      []purchaseOrderLineRequest `json:"lines"`
	Reference  string                     `json:"reference,omitempty"`
}

type purchaseOrderReceiptRequest struct {
	Lines     []purchaseOrderLineRequest `json:"lines"`
	Reference string                     `json:"reference,omitempty"`
}

func purchaseOrderOut(d stockd.PurchaseOrderDoc) PurchaseOrder {
	out := PurchaseOrder{ID: d.ID, Supplier: d.Supplier, ExpectedAt: d.ExpectedAt.UTC(), Status: d.Status, Receipts: d.Receipts,
		Reference: d.Reference, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), Lines: make([]PurchaseOrderLine, 0, len(d.Lines))}
	for _, l := range d.Lines {
		open := l.Open()
		if d.Status != stockd.POOpen {
			// A cancelled order expects nothing more.
			open = 0
		}
		out.Lines = append(out.Lines, PurchaseOrderLine{SKU: l.SKU, Location: l.Location, Quantity: l.Quantity, Received: l.Received, Open: open})
	}
	return out
}

func (s *Server) createPurchaseOrder(w http.ResponseWriter, r *http.Request) {
	var req purchaseOrderRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			if req.ExpectedAt == nil {
				return stockd.Command{}, stockd.InvalidField("expected_at", "is required")
			}
			lines, err := purchaseOrderLines(req.Lines)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.PurchaseOrder{
				ID: req.ID, Supplier: req.Supplier, ExpectedAt: *req.ExpectedAt, Lines: lines, Reference: req.Reference,
			}}, nil
		},
		answer: objectOut(purchaseOrderOut),
	})
}

func purchaseOrderLines(lines []purchaseOrderLineRequest) ([]stockd.POLineRequest, *stockd.Error) {
	if len(lines) > stockd.PurchaseOrderLinesMax {
		return nil, stockd.InvalidField("lines", "must hold 1 to %d lines", stockd.PurchaseOrderLinesMax)
	}
	out := make([]stockd.POLineRequest, 0, len(lines))
	for _, l := range lines {
		q, err := requiredQuantity("lines.quantity", l.Quantity)
		if err != nil {
			return nil, err
		}
		out = append(out, stockd.POLineRequest{SKU: l.SKU, Location: l.Location, Quantity: q})
	}
	return out, nil
}

func (s *Server) createPurchaseOrderReceipt(w http.ResponseWriter, r *http.Request) {
	var req purchaseOrderReceiptRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, err := pathIdentifier(r, "id")
			if err != nil {
				return stockd.Command{}, err
			}
			lines, err := purchaseOrderLines(req.Lines)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.PurchaseOrderReceipt{
				OrderID: id, Lines: lines, Reference: req.Reference,
			}}, nil
		},
		answer: objectOut(purchaseOrderOut),
	})
}

// cancelPurchaseOrder names the order only: the batch locks the
// positions of its lines (stockd.DocumentTouches).
func (s *Server) cancelPurchaseOrder(w http.ResponseWriter, r *http.Request) {
	s.mutateResource(w, r, "id", func(id string) stockd.Operation {
		return &stockd.PurchaseOrderCancel{OrderID: id}
	}, objectOut(purchaseOrderOut))
}

// PurchaseOrderList is one page of GET /v1/purchase-orders.
type PurchaseOrderList struct {
	PurchaseOrders []PurchaseOrder `json:"purchase_orders"`
	// NextAfter is the cursor of the next page; empty after the last.
	NextAfter string `json:"next_after,omitempty"`
}

// listPurchaseOrders pages through purchase orders by id; status filters
// within each page, as approvals' does.
func (s *Server) listPurchaseOrders(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	p, verr := documentPage(q, stockd.DocPurchaseOrder)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	status := q.Get("status")
	switch {
	case !q.Has("status"), status == stockd.POOpen, status == stockd.POReceived, status == stockd.POCancelled:
	default:
		writeProblem(w, stockd.InvalidField("status", "must be one of open, received, cancelled"))
		return
	}
	docs, next, err := listDocuments(s, r, p, func(d stockd.PurchaseOrderDoc) bool { return status == "" || d.Status == status })
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := PurchaseOrderList{PurchaseOrders: make([]PurchaseOrder, 0, len(docs)), NextAfter: next}
	for _, d := range docs {
		out.PurchaseOrders = append(out.PurchaseOrders, purchaseOrderOut(d))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) getPurchaseOrder(w http.ResponseWriter, r *http.Request) {
	var d stockd.PurchaseOrderDoc
	if s.answerDocument(w, r, "id", stockd.DocPurchaseOrder, "purchase order", &d) {
		writeJSON(w, http.StatusOK, purchaseOrderOut(d))
	}
}
