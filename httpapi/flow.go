package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/stockd/stockd"
)

// flowRoutes serves returns, quarantine, moves, shipments, transfers and
// purchase orders. Returns and shipments are the order services' (reserve);
// everything that moves stock inside the warehouse is stock.
func (s *Server) flowRoutes() []route {
	return []route{
		{"POST /v1/returns", "return_create", stockd.ScopeReserve, s.createReturn},
		{"POST /v1/quarantine/release", "quarantine_release", stockd.ScopeStock, s.releaseQuarantine},
		{"POST /v1/quarantine/scrap", "quarantine_scrap", stockd.ScopeStock, s.scrapQuarantine},
		{"POST /v1/moves", "move_create", stockd.ScopeStock, s.createMove},
		{"POST /v1/shipments", "shipment_create", stockd.ScopeReserve, s.createShipment},
		{"POST /v1/transfers", "transfer_create", stockd.ScopeStock, s.createTransfer},
		{"GET /v1/transfers/{id}", "transfer_get", stockd.ScopeRead, s.getTransfer},
		{"POST /v1/transfers/{id}/receipts", "transfer_receipt_create", stockd.ScopeStock, s.createTransferReceipt},
		{"POST /v1/transfers/{id}/cancel", "transfer_cancel", stockd.ScopeStock, s.cancelTransfer},
		{"POST /v1/purchase-orders", "purchase_order_create", stockd.ScopeStock, s.createPurchaseOrder},
		{"GET /v1/purchase-orders/{id}", "purchase_order_get", stockd.ScopeRead, s.getPurchaseOrder},
		{"POST /v1/purchase-orders/{id}/receipts", "purchase_order_receipt_create", stockd.ScopeStock, s.createPurchaseOrderReceipt},
		{"POST /v1/purchase-orders/{id}/cancel", "purchase_order_cancel", stockd.ScopeStock, s.cancelPurchaseOrder},
	}
}

// Request bodies of the flow mutations.

type returnLineRequest struct {
	SKU      string `json:"sku"`
	Location string `json:"location,omitempty"`
	Pool     string `json:"pool,omitempty"`
	Quantity *int64 `json:"quantity"`
}

type returnRequest struct {
	ReservationID string              `json:"reservation_id"`
	Lines         []returnLineRequest `json:"lines"`
	Restock       bool                `json:"restock,omitempty"`
	Reference     string              `json:"reference,omitempty"`
}

type quarantineRequest struct {
	SKU       string `json:"sku"`
	Location  string `json:"location,omitempty"`
	Pool      string `json:"pool,omitempty"`
	Quantity  *int64 `json:"quantity"`
	Reason    string `json:"reason,omitempty"` // scrap only
	Reference string `json:"reference,omitempty"`
}

type moveRequest struct {
	SKU       string `json:"sku"`
	Location  string `json:"location,omitempty"`
	Pool      string `json:"pool,omitempty"`
	From      string `json:"from"`
	To        string `json:"to"`
	Quantity  *int64 `json:"quantity"`
	Reference string `json:"reference,omitempty"`
}

type stockLineRequest struct {
	SKU      string `json:"sku"`
	Location string `json:"location,omitempty"`
	Pool     string `json:"pool,omitempty"`
	Quantity *int64 `json:"quantity"`
}

type shipmentRequest struct {
	Lines     []stockLineRequest `json:"lines"`
	Reference string             `json:"reference,omitempty"`
}

type transferRequest struct {
	SKU          string `json:"sku"`
	FromLocation string `json:"from_location"`
	ToLocation   string `json:"to_location"`
	Pool         string `json:"pool,omitempty"`
	Quantity     *int64 `json:"quantity"`
	Reference    string `json:"reference,omitempty"`
}

type quantityRequest struct {
	Quantity  *int64 `json:"quantity"`
	Reference string `json:"reference,omitempty"`
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

// Answers of the flow endpoints.

// ReturnReceipt is the answer to a return: a refund (before shipment) or a
// return (after it), with the lines it gave back and the reservation after.
type ReturnReceipt struct {
	ID            string            `json:"id"`
	ReservationID string            `json:"reservation_id"`
	Type          string            `json:"type"`
	Restock       bool              `json:"restock"`
	Lines         []ReservationLine `json:"lines"`
	Reference     string            `json:"reference,omitempty"`
	Reservation   Reservation       `json:"reservation"`
	CreatedAt     time.Time         `json:"created_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

// ShipmentLine is one position and the quantity that left it.
type ShipmentLine struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
	Quantity int64  `json:"quantity"`
}

// Shipment is the answer to a shipment: what left and the positions after.
type Shipment struct {
	ID        string         `json:"id"`
	Lines     []ShipmentLine `json:"lines"`
	Positions []Position     `json:"positions"`
	Reference string         `json:"reference,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

// Transfer is a transfer between locations and what arrived so far.
type Transfer struct {
	ID           string    `json:"id"`
	SKU          string    `json:"sku"`
	FromLocation string    `json:"from_location"`
	ToLocation   string    `json:"to_location"`
	Pool         string    `json:"pool"`
	Quantity     int64     `json:"quantity"`
	Received     int64     `json:"received"`
	Cancelled    int64     `json:"cancelled"`
	Outstanding  int64     `json:"outstanding"`
	Receipts     int       `json:"receipts"`
	Status       string    `json:"status"`
	Reference    string    `json:"reference,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
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

func returnOut(r stockd.ReturnReceipt) ReturnReceipt {
	out := ReturnReceipt{ID: r.ID, ReservationID: r.ReservationID, Type: r.Type, Restock: r.Restock, Reference: r.Reference,
		Reservation: reservationOut(r.Reservation), CreatedAt: r.CreatedAt.UTC(), Lines: make([]ReservationLine, 0, len(r.Lines))}
	for _, l := range r.Lines {
		out.Lines = append(out.Lines, ReservationLine{SKU: l.SKU, Quantity: l.Quantity, Location: l.Location, Pool: l.Pool, Bundle: l.Bundle})
	}
	return out
}

func shipmentOut(r stockd.ShipmentReceipt) Shipment {
	out := Shipment{ID: r.ID, Reference: r.Reference, CreatedAt: r.CreatedAt.UTC(),
		Lines: make([]ShipmentLine, 0, len(r.Shipped)), Positions: make([]Position, 0, len(r.Positions))}
	for _, l := range r.Shipped {
		out.Lines = append(out.Lines, ShipmentLine(l))
	}
	for _, p := range r.Positions {
		out.Positions = append(out.Positions, positionOut(p))
	}
	return out
}

func transferOut(d stockd.TransferDoc) Transfer {
	return Transfer{ID: d.ID, SKU: d.SKU, FromLocation: d.FromLocation, ToLocation: d.ToLocation, Pool: d.Pool,
		Quantity: d.Quantity, Received: d.Received, Cancelled: d.Cancelled, Outstanding: d.Outstanding(), Receipts: d.Receipts, Status: d.Status,
		Reference: d.Reference, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC()}
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

func answerPosition(res stockd.Result) any { return positionOut(*res.Position) }

func requiredQuantity(field string, q *int64) (int64, *stockd.Error) {
	if q == nil {
		return 0, stockd.InvalidField(field, "is required")
	}
	return *q, nil
}

func (s *Server) createReturn(w http.ResponseWriter, r *http.Request) {
	var req returnRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			op := &stockd.Return{ReservationID: req.ReservationID, Restock: req.Restock, Reference: req.Reference}
			if len(req.Lines) > stockd.LinesPerReservationMax {
				return stockd.Command{}, stockd.InvalidField("lines", "must hold 1 to %d lines", stockd.LinesPerReservationMax)
			}
			for _, l := range req.Lines {
				q, err := requiredQuantity("lines.quantity", l.Quantity)
				if err != nil {
					return stockd.Command{}, err
				}
				op.Lines = append(op.Lines, stockd.ReturnLine{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: q})
			}
			return stockd.Command{Op: op}, nil
		},
		answer: objectOut(returnOut),
	})
}

func (s *Server) releaseQuarantine(w http.ResponseWriter, r *http.Request) {
	var req quarantineRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			if req.Reason != "" {
				return stockd.Command{}, stockd.InvalidField("reason", "is for scrap only")
			}
			return stockd.Command{Op: &stockd.QuarantineRelease{
				Position: stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool}, Quantity: q, Reference: req.Reference,
			}}, nil
		},
		answer: answerPosition,
	})
}

func (s *Server) scrapQuarantine(w http.ResponseWriter, r *http.Request) {
	var req quarantineRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.QuarantineScrap{
				Position: stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool}, Quantity: q,
				Reason: req.Reason, Reference: req.Reference,
			}}, nil
		},
		answer: answerPosition,
	})
}

func (s *Server) createMove(w http.ResponseWriter, r *http.Request) {
	var req moveRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.StockMove{
				Position: stockd.PositionKey{SKU: req.SKU, Location: req.Location, Pool: req.Pool}, Quantity: q,
				From: req.From, To: req.To, Reference: req.Reference,
			}}, nil
		},
		answer: answerPosition,
	})
}

func (s *Server) createShipment(w http.ResponseWriter, r *http.Request) {
	var req shipmentRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			if len(req.Lines) > stockd.LinesPerReservationMax {
				return stockd.Command{}, stockd.InvalidField("lines", "must hold 1 to %d lines", stockd.LinesPerReservationMax)
			}
			op := &stockd.Shipment{Reference: req.Reference}
			for _, l := range req.Lines {
				q, err := requiredQuantity("lines.quantity", l.Quantity)
				if err != nil {
					return stockd.Command{}, err
				}
				op.Lines = append(op.Lines, stockd.ShipmentLine{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: q})
			}
			return stockd.Command{Op: op}, nil
		},
		answer: objectOut(shipmentOut),
	})
}

func (s *Server) createTransfer(w http.ResponseWriter, r *http.Request) {
	var req transferRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.Transfer{
				SKU: req.SKU, FromLocation: req.FromLocation, ToLocation: req.ToLocation, Pool: req.Pool,
				Quantity: q, Reference: req.Reference,
			}}, nil
		},
		answer: objectOut(transferOut),
	})
}

// createTransferReceipt names the transfer only: the batch reads it and
// locks its SKU's positions (stockd.DocumentTouches), and an unknown id is
// the batch's not_found.
func (s *Server) createTransferReceipt(w http.ResponseWriter, r *http.Request) {
	var req quantityRequest
	s.mutate(w, r, mutation{
		body: &req,
		command: func() (stockd.Command, *stockd.Error) {
			id, err := pathIdentifier(r, "id")
			if err != nil {
				return stockd.Command{}, err
			}
			q, err := requiredQuantity("quantity", req.Quantity)
			if err != nil {
				return stockd.Command{}, err
			}
			return stockd.Command{Op: &stockd.TransferReceipt{
				TransferID: id, Quantity: q, Reference: req.Reference,
			}}, nil
		},
		answer: objectOut(transferOut),
	})
}

// cancelTransfer names the transfer only, as createTransferReceipt does.
func (s *Server) cancelTransfer(w http.ResponseWriter, r *http.Request) {
	s.mutateResource(w, r, "id", func(id string) stockd.Operation {
		return &stockd.TransferCancel{TransferID: id}
	}, objectOut(transferOut))
}

func (s *Server) getTransfer(w http.ResponseWriter, r *http.Request) {
	var d stockd.TransferDoc
	if s.answerDocument(w, r, "id", stockd.DocTransfer, "transfer", &d) {
		writeJSON(w, http.StatusOK, transferOut(d))
	}
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

func (s *Server) getPurchaseOrder(w http.ResponseWriter, r *http.Request) {
	var d stockd.PurchaseOrderDoc
	if s.answerDocument(w, r, "id", stockd.DocPurchaseOrder, "purchase order", &d) {
		writeJSON(w, http.StatusOK, purchaseOrderOut(d))
	}
}

// answerDocument reads the document of kind named by the path value param
// into v for a GET, and reports whether it did; otherwise it has answered
// (what names the kind in a not_found answer).
func (s *Server) answerDocument(w http.ResponseWriter, r *http.Request, param, kind, what string, v any) bool {
	id, verr := pathIdentifier(r, param)
	if verr != nil {
		writeProblem(w, verr)
		return false
	}
	d, err := s.store.DocumentGet(r.Context(), stockd.DocKey{Kind: kind, ID: id})
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "%s %q not found", what, id))
		return false
	}
	if err == nil {
		err = json.Unmarshal(d.Body, v)
	}
	if err != nil {
		s.failure(w, r, err)
		return false
	}
	return true
}
