package stockd

import (
	"encoding/json"
	"fmt"
	"time"
)

// Command kinds of purchase orders.
const (
	KindPurchaseOrder        CommandKind = "purchase_order"
	KindPurchaseOrderReceipt CommandKind = "purchase_order_receipt"
	KindPurchaseOrderCancel  CommandKind = "purchase_order_cancel"
)

// Purchase order statuses.
const (
	POOpen      = "open"
	POReceived  = "received"
	POCancelled = "cancelled"
)

// PurchaseOrderLinesMax bounds the lines of one purchase order, and so the
// size of its document.
const PurchaseOrderLinesMax = 100

// POLine is one (SKU, location) of a purchase order, always in the normal
// pool: what is expected, and what came in so far.
type POLine struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Quantity int64  `json:"quantity"`
	Received int64  `json:"received"`
}

// Open is the quantity still expected: it shows as incoming.
func (l POLine) Open() int64 { return l.Quantity - l.Received }

func (l POLine) key() PositionKey {
	return PositionKey{SKU: l.SKU, Location: l.Location, Pool: PoolDefault}
}

// PurchaseOrderDoc is the document (DocPurchaseOrder, id = order id).
// Receipts counts the receipts so far; receipt n writes its ledger entries
// under the business id "<id>/r<n>".
type PurchaseOrderDoc struct {
	ID         string    `json:"id"`
	Supplier   string    `json:"supplier"`
	ExpectedAt time.Time `json:"expected_at"`
	Status     string    `json:"status"`
	Lines      []POLine  `json:"lines"`
	Receipts   int       `json:"receipts"`
	Reference  string    `json:"reference,omitempty"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// POLineRequest is one line of a purchase order or of a receipt against
// one; an empty location is the default one.
type POLineRequest struct {
	SKU      string
	Location string
	Quantity int64
}

// normalizePOLines fills default locations, validates, and merges lines
// naming one (SKU, location): one ledger entry per position.
func normalizePOLines(lines []POLineRequest) ([]POLineRequest, *Error) {
	if len(lines) == 0 || len(lines) > PurchaseOrderLinesMax {
		return nil, InvalidField("lines", "must hold 1 to %d lines", PurchaseOrderLinesMax)
	}
	merged := make([]POLineRequest, 0, len(lines))
	index := map[PositionKey]int{}
	for _, l := range lines {
		k := PositionKey{SKU: l.SKU, Location: l.Location}
		if err := NormalizeKey(&k); err != nil {
			return nil, err
		}
		if err := validQuantity("quantity", l.Quantity); err != nil {
			return nil, err
		}
		if i, ok := index[k]; ok {
			merged[i].Quantity += l.Quantity
			if merged[i].Quantity > QuantityMax {
				return nil, InvalidField("quantity", "merged quantity of %s above %d", k.SKU, QuantityMax)
			}
			continue
		}
		index[k] = len(merged)
		merged = append(merged, POLineRequest{SKU: k.SKU, Location: k.Location, Quantity: l.Quantity})
	}
	return merged, nil
}

// PurchaseOrder expects stock from a supplier: each line's open quantity
// is incoming at its position, never sellable. ID is the caller's order
// number, or empty for a new id. Like transfers, it refuses lines at an
// inactive location: stock ordered there could never be sold.
type PurchaseOrder struct {
	ID         string
	Supplier   string
	ExpectedAt time.Time
	Lines      []POLineRequest
	Reference  string
}

func (po *PurchaseOrder) Kind() CommandKind { return KindPurchaseOrder }

func (po *PurchaseOrder) Touches(t *Touches) {
	if po.ID != "" {
		t.Docs = append(t.Docs, DocKey{Kind: DocPurchaseOrder, ID: po.ID})
	}
	for _, l := range po.Lines {
		t.SKUs = append(t.SKUs, l.SKU)
		t.Ensure = append(t.Ensure, PositionKey{SKU: l.SKU, Location: l.Location, Pool: PoolDefault})
	}
}

func (po *PurchaseOrder) normalize() *Error {
	if po.ID != "" && !ValidIdentifier(po.ID) {
		return InvalidField("id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if err := validText("supplier", po.Supplier, NameLengthMax, true); err != nil {
		return err
	}
	if po.ExpectedAt.IsZero() {
		return InvalidField("expected_at", "is required")
	}
	expected, err := NormalizeTime("expected_at", po.ExpectedAt)
	if err != nil {
		return err
	}
	po.ExpectedAt = expected
	lines, err := normalizePOLines(po.Lines)
	if err != nil {
		return err
	}
	po.Lines = lines
	return validText("reference", po.Reference, ReferenceLengthMax, false)
}

func (po *PurchaseOrder) decide(s *BatchState, c *Command) Result {
	if po.ID != "" {
		var existing PurchaseOrderDoc
		if s.docGet(DocPurchaseOrder, po.ID, &existing) {
			return Result{Err: Errorf(CodeAlreadyExists, "purchase order %q already exists", po.ID)}
		}
	}
	d := PurchaseOrderDoc{ID: po.ID, Supplier: po.Supplier, ExpectedAt: po.ExpectedAt, Status: POOpen,
		Reference: po.Reference, CreatedAt: s.Now, UpdatedAt: s.Now}
	for _, l := range po.Lines {
		line := POLine{SKU: l.SKU, Location: l.Location, Quantity: l.Quantity}
		k := line.key()
		if err := s.checkPosition(k); err != nil {
			return Result{Err: err}
		}
		if err := s.stockIn(k.SKU); err != nil {
			return Result{Err: err}
		}
		if s.Locations[k.Location].Inactive {
			return Result{Err: Errorf(CodeLocationInactive, "location %q is inactive: it cannot expect a purchase order", k.Location)}
		}
		if s.peek(k).Incoming+l.Quantity > CounterMax {
			return Result{Err: InvalidField("quantity", "incoming would exceed %d", CounterMax)}
		}
		d.Lines = append(d.Lines, line)
	}
	if d.ID == "" {
		d.ID = s.NewID()
	}
	for _, l := range d.Lines {
		s.change(l.key(), Counters{Incoming: l.Quantity}, LedgerEntry{
			BusinessType: BusinessPurchaseOrder, BusinessID: d.ID, Actor: c.Actor, Reference: po.Reference,
		})
	}
	s.docPut(DocPurchaseOrder, d.ID, d)
	return Result{Object: objectOf(d), Created: true}
}

// PurchaseOrderReceipt brings part of an open purchase order into on_hand.
// Receiving more than a line's open quantity is refused: an over-delivery
// is a receipt (POST /v1/receipts) of its own, so that incoming never goes
// below zero and the order keeps saying what was ordered.
type PurchaseOrderReceipt struct {
	OrderID   string
	Lines     []POLineRequest
	Reference string
}

func (r *PurchaseOrderReceipt) Kind() CommandKind { return KindPurchaseOrderReceipt }

func (r *PurchaseOrderReceipt) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocPurchaseOrder, ID: r.OrderID})
	for _, l := range r.Lines {
		t.SKUs = append(t.SKUs, l.SKU)
	}
}

func (r *PurchaseOrderReceipt) normalize() *Error {
	if !ValidIdentifier(r.OrderID) {
		return InvalidField("id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	lines, err := normalizePOLines(r.Lines)
	if err != nil {
		return err
	}
	r.Lines = lines
	return validText("reference", r.Reference, ReferenceLengthMax, false)
}

func (r *PurchaseOrderReceipt) decide(s *BatchState, c *Command) Result {
	var d PurchaseOrderDoc
	if !s.docGet(DocPurchaseOrder, r.OrderID, &d) {
		return Result{Err: Errorf(CodeNotFound, "purchase order %q not found", r.OrderID)}
	}
	if d.Status == POCancelled {
		// Nothing is open any more. (invalid_transition is the
		// reservations' code: it carries their status.)
		return Result{Err: Errorf(CodeQuantityExceeded, "purchase order %q is cancelled: nothing is open to receive", d.ID)}
	}
	index := make([]int, len(r.Lines))
	for i, l := range r.Lines {
		index[i] = -1
		for j, pl := range d.Lines {
			if pl.SKU == l.SKU && pl.Location == l.Location {
				index[i] = j
			}
		}
		if index[i] < 0 {
			return Result{Err: Errorf(CodeUnprocessable, "purchase order %q has no line of sku %q at %q", d.ID, l.SKU, l.Location)}
		}
		pl := d.Lines[index[i]]
		if l.Quantity > pl.Open() {
			return Result{Err: Errorf(CodeQuantityExceeded, "purchase order %q expects %d more of %s at %s, not %d", d.ID, pl.Open(), pl.SKU, pl.Location, l.Quantity)}
		}
		if s.peek(pl.key()).OnHand+l.Quantity > CounterMax {
			return Result{Err: InvalidField("quantity", "on_hand would exceed %d", CounterMax)}
		}
	}
	d.Receipts++
	id := fmt.Sprintf("%s/r%d", d.ID, d.Receipts)
	for i, l := range r.Lines {
		pl := &d.Lines[index[i]]
		pl.Received += l.Quantity
		s.change(pl.key(), Counters{Incoming: -l.Quantity, OnHand: l.Quantity}, LedgerEntry{
			BusinessType: BusinessPOReceipt, BusinessID: id, Actor: c.Actor, Reference: r.Reference,
		})
	}
	if poOpen(&d) == 0 {
		d.Status = POReceived
	}
	d.UpdatedAt = s.Now
	s.docPut(DocPurchaseOrder, d.ID, d)
	return Result{Object: objectOf(d)}
}

func poOpen(d *PurchaseOrderDoc) int64 {
	var open int64
	for _, l := range d.Lines {
		open += l.Open()
	}
	return open
}

// PurchaseOrderCancel gives up what an open order still expects: each
// line's open quantity leaves incoming, once. Cancelling again answers the
// order as it is; cancelling a fully received order is unprocessable. It
// names the order only: the batch learns the SKUs whose positions it locks
// from the document (purchaseOrderTouches).
type PurchaseOrderCancel struct {
	OrderID string
}

func (r *PurchaseOrderCancel) Kind() CommandKind { return KindPurchaseOrderCancel }

func (r *PurchaseOrderCancel) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocPurchaseOrder, ID: r.OrderID})
}

func (r *PurchaseOrderCancel) normalize() *Error {
	if !ValidIdentifier(r.OrderID) {
		return InvalidField("id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	return nil
}

func (r *PurchaseOrderCancel) decide(s *BatchState, c *Command) Result {
	var d PurchaseOrderDoc
	if !s.docGet(DocPurchaseOrder, r.OrderID, &d) {
		return Result{Err: Errorf(CodeNotFound, "purchase order %q not found", r.OrderID)}
	}
	switch d.Status {
	case POCancelled:
		return Result{Object: objectOf(d)}
	case POReceived:
		return Result{Err: Errorf(CodeUnprocessable, "purchase order %q is fully received: nothing to cancel", d.ID)}
	}
	for _, l := range d.Lines {
		if open := l.Open(); open > 0 {
			s.change(l.key(), Counters{Incoming: -open}, LedgerEntry{
				BusinessType: BusinessPOCancel, BusinessID: d.ID, Actor: c.Actor,
			})
		}
	}
	d.Status = POCancelled
	d.UpdatedAt = s.Now
	s.docPut(DocPurchaseOrder, d.ID, d)
	return Result{Object: objectOf(d)}
}

// purchaseOrderTouches adds the positions of an order read by the batch,
// so that receipts and cancels need not name its SKUs.
func purchaseOrderTouches(d *Document, t *Touches) {
	var po PurchaseOrderDoc
	if err := json.Unmarshal(d.Body, &po); err != nil {
		panic(fmt.Sprintf("stockd: document %s/%s not decodable: %v", d.Kind, d.ID, err))
	}
	for _, l := range po.Lines {
		t.SKUs = append(t.SKUs, l.SKU)
		t.Ensure = append(t.Ensure, l.key())
	}
}
