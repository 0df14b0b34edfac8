package stockd

import (
	"encoding/json"
	"fmt"
	"time"
)

// Command kinds of transfers between locations.
const (
	KindTransfer        CommandKind = "transfer"
	KindTransferReceipt CommandKind = "transfer_receipt"
	KindTransferCancel  CommandKind = "transfer_cancel"
)

// Transfer statuses.
const (
	TransferOpen      = "open"
	TransferReceived  = "received"
	TransferCancelled = "cancelled"
)

// Transfer sends Quantity of a SKU from one location's on_hand to
// another's in_transit, where it is visible but never sellable until a
// receipt brings it into on_hand. Both ends are in the same pool.
//
// The target must be active: stock sent to a location switched off could
// never be sold there. The source may be inactive, since emptying a
// location that closes is what a transfer is for.
type Transfer struct {
	SKU          string
	FromLocation string
	ToLocation   string
	Pool         string
	Quantity     int64
	Reference    string
}

// TransferDoc is the document (DocTransfer, id = transfer id) of one
// transfer. Receipts counts the receipts so far; receipt n writes its
// ledger entries under the business id "<id>/r<n>". Cancelled is what a
// cancel sent back to the source.
type TransferDoc struct {
	ID           string    `json:"id"`
	SKU          string    `json:"sku"`
	FromLocation string    `json:"from_location"`
	ToLocation   string    `json:"to_location"`
	Pool         string    `json:"pool"`
	Quantity     int64     `json:"quantity"`
	Received     int64     `json:"received"`
	Cancelled    int64     `json:"cancelled,omitempty"`
	Receipts     int       `json:"receipts"`
	Status       string    `json:"status"`
	Reference    string    `json:"reference,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
	UpdatedAt    time.Time `json:"updated_at"`
}

// Outstanding is what is still in transit.
func (d TransferDoc) Outstanding() int64 { return d.Quantity - d.Received - d.Cancelled }

func (d TransferDoc) from() PositionKey {
	return PositionKey{SKU: d.SKU, Location: d.FromLocation, Pool: d.Pool}
}

func (d TransferDoc) to() PositionKey {
	return PositionKey{SKU: d.SKU, Location: d.ToLocation, Pool: d.Pool}
}

func (tr *Transfer) Kind() CommandKind { return KindTransfer }

func (tr *Transfer) Touches(t *Touches) {
	t.SKUs = append(t.SKUs, tr.SKU)
	// The target position may never have been stocked.
	t.Ensure = append(t.Ensure, PositionKey{SKU: tr.SKU, Location: tr.ToLocation, Pool: tr.Pool})
	poolDocTouches(PositionKey{SKU: tr.SKU, Pool: tr.Pool}, t)
}

func (tr *Transfer) normalize() *Error {
	if tr.Pool == "" {
		tr.Pool = PoolDefault
	}
	for field, v := range map[string]string{"sku": tr.SKU, "from_location": tr.FromLocation, "to_location": tr.ToLocation, "pool": tr.Pool} {
		if !ValidIdentifier(v) {
			return InvalidField(field, "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
		}
	}
	if tr.FromLocation == tr.ToLocation {
		return InvalidField("to_location", "must differ from from_location")
	}
	if err := validQuantity("quantity", tr.Quantity); err != nil {
		return err
	}
	return validText("reference", tr.Reference, ReferenceLengthMax, false)
}

func (tr *Transfer) decide(s *BatchState, c *Command) Result {
	d := TransferDoc{
		SKU: tr.SKU, FromLocation: tr.FromLocation, ToLocation: tr.ToLocation, Pool: tr.Pool,
		Quantity: tr.Quantity, Status: TransferOpen, Reference: tr.Reference,
	}
	from, to := d.from(), d.to()
	if err := s.checkPosition(from); err != nil {
		return Result{Err: err}
	}
	if err := s.checkPosition(to); err != nil {
		return Result{Err: err}
	}
	if s.Locations[to.Location].Inactive {
		return Result{Err: Errorf(CodeLocationInactive, "location %q is inactive: it cannot receive a transfer", to.Location)}
	}
	if err := s.campaignStockIn(to); err != nil {
		return Result{Err: err}
	}
	if avail := s.peek(from).Available(); avail < tr.Quantity {
		return Result{Err: &Error{Code: CodeInsufficientStock, Message: "not enough available to transfer",
			Lines: []Shortfall{{SKU: from.SKU, Location: from.Location, Pool: from.Pool, Requested: tr.Quantity, Available: avail}}}}
	}
	if s.peek(to).InTransit+tr.Quantity > CounterMax {
		return Result{Err: InvalidField("quantity", "in_transit would exceed %d", CounterMax)}
	}
	d.ID = s.NewID()
	d.CreatedAt, d.UpdatedAt = s.Now, s.Now
	entry := LedgerEntry{BusinessType: BusinessTransfer, BusinessID: d.ID, Actor: c.Actor, Reference: tr.Reference}
	s.change(from, Counters{OnHand: -tr.Quantity}, entry)
	s.change(to, Counters{InTransit: tr.Quantity}, entry)
	s.docPut(DocTransfer, d.ID, d)
	return Result{Object: objectOf(d), Created: true}
}

// TransferReceipt brings Quantity of a transfer into its target's on_hand.
// It names the transfer only: the batch learns the SKU whose positions it
// locks from the document (transferTouches).
type TransferReceipt struct {
	TransferID string
	Quantity   int64
	Reference  string
}

func (tr *TransferReceipt) Kind() CommandKind { return KindTransferReceipt }

func (tr *TransferReceipt) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocTransfer, ID: tr.TransferID})
}

func (tr *TransferReceipt) normalize() *Error {
	if !ValidIdentifier(tr.TransferID) {
		return InvalidField("id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if err := validQuantity("quantity", tr.Quantity); err != nil {
		return err
	}
	return validText("reference", tr.Reference, ReferenceLengthMax, false)
}

func (tr *TransferReceipt) decide(s *BatchState, c *Command) Result {
	var d TransferDoc
	if !s.docGet(DocTransfer, tr.TransferID, &d) {
		return Result{Err: Errorf(CodeNotFound, "transfer %q not found", tr.TransferID)}
	}
	if open := d.Outstanding(); tr.Quantity > open {
		return Result{Err: Errorf(CodeQuantityExceeded, "transfer %q has %d in transit, not %d", d.ID, open, tr.Quantity)}
	}
	to := d.to()
	if s.peek(to).OnHand+tr.Quantity > CounterMax {
		return Result{Err: InvalidField("quantity", "on_hand would exceed %d", CounterMax)}
	}
	d.Receipts++
	d.Received += tr.Quantity
	if d.Outstanding() == 0 {
		d.Status = TransferReceived
	}
	d.UpdatedAt = s.Now
	s.change(to, Counters{InTransit: -tr.Quantity, OnHand: tr.Quantity}, LedgerEntry{
		BusinessType: BusinessTransferReceipt, BusinessID: fmt.Sprintf("%s/r%d", d.ID, d.Receipts),
		Actor: c.Actor, Reference: tr.Reference,
	})
	s.docPut(DocTransfer, d.ID, d)
	return Result{Object: objectOf(d)}
}

// TransferCancel gives up what a transfer still has in transit: it leaves
// the target's in_transit and goes back into the source's on_hand (the
// goods never left, or came back), once, under the business id
// "<id>/cancel". Cancelling again answers the transfer as it is;
// cancelling one fully received is unprocessable. It names the transfer
// only, as TransferReceipt does.
type TransferCancel struct {
	TransferID string
}

func (tc *TransferCancel) Kind() CommandKind { return KindTransferCancel }

func (tc *TransferCancel) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocTransfer, ID: tc.TransferID})
}

func (tc *TransferCancel) normalize() *Error {
	if !ValidIdentifier(tc.TransferID) {
		return InvalidField("id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	return nil
}

func (tc *TransferCancel) decide(s *BatchState, c *Command) Result {
	var d TransferDoc
	if !s.docGet(DocTransfer, tc.TransferID, &d) {
		return Result{Err: Errorf(CodeNotFound, "transfer %q not found", tc.TransferID)}
	}
	switch d.Status {
	case TransferCancelled:
		return Result{Object: objectOf(d)}
	case TransferReceived:
		return Result{Err: Errorf(CodeUnprocessable, "transfer %q is fully received: nothing to cancel", d.ID)}
	}
	open := d.Outstanding()
	from := d.from()
	if s.peek(from).OnHand+open > CounterMax {
		return Result{Err: Errorf(CodeInvalidInput, "on_hand at %s would exceed %d", from.Location, CounterMax)}
	}
	entry := LedgerEntry{BusinessType: BusinessTransfer, BusinessID: d.ID + "/cancel", Actor: c.Actor}
	s.change(d.to(), Counters{InTransit: -open}, entry)
	s.change(from, Counters{OnHand: open}, entry)
	d.Cancelled = open
	d.Status = TransferCancelled
	d.UpdatedAt = s.Now
	s.docPut(DocTransfer, d.ID, d)
	return Result{Object: objectOf(d)}
}

// transferTouches adds what a transfer read by the batch moves: its SKU's
// positions, and both ends (a cancel puts stock back into the source), so
// that receipts and cancels name the transfer alone.
func transferTouches(d *Document, t *Touches) {
	var tr TransferDoc
	if err := json.Unmarshal(d.Body, &tr); err != nil {
		panic(fmt.Sprintf("stockd: document %s/%s not decodable: %v", d.Kind, d.ID, err))
	}
	t.SKUs = append(t.SKUs, tr.SKU)
	t.Ensure = append(t.Ensure, tr.from(), tr.to())
}
