package stockd

import "time"

// KindShipment ships SKUs that deduct at shipment.
const KindShipment CommandKind = "shipment"

// Shipment takes stock of SKUs that deduct at shipment out of on_hand as it
// leaves: such orders held nothing before, so this is where they learn
// whether the stock is there. SKUs deducting at order or payment ship
// through their reservation's fulfil instead, which takes what they hold.
type Shipment struct {
	// Lines name positions; an empty location or pool is the default one.
	Lines     []ShipmentLine
	Reference string
}

// ShipmentLine is one position and the quantity leaving it.
type ShipmentLine struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
	Quantity int64  `json:"quantity"`
}

// ShipmentReceipt is the answer to a shipment: its id (the business id of
// its ledger entries), what left, and each position after it.
type ShipmentReceipt struct {
	ID        string         `json:"id"`
	Shipped   []ShipmentLine `json:"lines"`
	Positions []Position     `json:"positions"`
	Reference string         `json:"reference,omitempty"`
	CreatedAt time.Time      `json:"created_at"`
}

func (sh *Shipment) Kind() CommandKind { return KindShipment }

func (sh *Shipment) Touches(t *Touches) {
	for _, l := range sh.Lines {
		t.SKUs = append(t.SKUs, l.SKU)
	}
	t.References = append(t.References, sh.referenceKeys()...)
}

// referenceKeys are the business numbers the shipment takes: its
// reference for each SKU it ships.
func (sh *Shipment) referenceKeys() []ReferenceKey {
	skus := make([]string, len(sh.Lines))
	for i, l := range sh.Lines {
		skus[i] = l.SKU
	}
	return referenceKeys(BusinessShipment, sh.Reference, skus...)
}

// normalize fills default locations and pools and merges lines naming one
// position, so that each position gets one ledger entry.
func (sh *Shipment) normalize() *Error {
	if len(sh.Lines) == 0 || len(sh.Lines) > LinesPerReservationMax {
		return InvalidField("lines", "must hold 1 to %d lines", LinesPerReservationMax)
	}
	merged := make([]ShipmentLine, 0, len(sh.Lines))
	index := map[PositionKey]int{}
	for _, l := range sh.Lines {
		k := PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
		if err := NormalizeKey(&k); err != nil {
			return err
		}
		if err := validQuantity("quantity", l.Quantity); err != nil {
			return err
		}
		if i, ok := index[k]; ok {
			merged[i].Quantity += l.Quantity
			if merged[i].Quantity > QuantityMax {
				return InvalidField("quantity", "merged quantity of %s above %d", k.SKU, QuantityMax)
			}
			continue
		}
		index[k] = len(merged)
		merged = append(merged, ShipmentLine{SKU: k.SKU, Location: k.Location, Pool: k.Pool, Quantity: l.Quantity})
	}
	sh.Lines = merged
	return validText("reference", sh.Reference, ReferenceLengthMax, false)
}

// decide ships every line or none.
func (sh *Shipment) decide(s *BatchState, c *Command) Result {
	var short []Shortfall
	for _, l := range sh.Lines {
		k := PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
		if err := s.checkPosition(k); err != nil {
			return Result{Err: err}
		}
		if d := s.SKUs[l.SKU].Deduction; d != DeductionAtShipment {
			return Result{Err: Errorf(CodeDeductionTiming, "sku %q deducts %s: ship it by fulfilling its reservation", l.SKU, d)}
		}
		if avail := s.peek(k).Available(); avail < l.Quantity {
			short = append(short, Shortfall{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Requested: l.Quantity, Available: avail})
		}
	}
	if len(short) > 0 {
		return Result{Err: &Error{Code: CodeInsufficientStock, Message: "not enough available to ship every line", Lines: short}}
	}
	receipt := ShipmentReceipt{ID: s.NewID(), Reference: sh.Reference, CreatedAt: s.Now}
	if err := s.claimReferences(sh.referenceKeys(), receipt.ID); err != nil {
		return Result{Err: err}
	}
	for _, l := range sh.Lines {
		k := PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
		s.change(k, Counters{OnHand: -l.Quantity}, LedgerEntry{
			BusinessType: BusinessShipment, BusinessID: receipt.ID, Actor: c.Actor, Reference: sh.Reference,
		})
		receipt.Positions = append(receipt.Positions, *s.position(k))
	}
	receipt.Shipped = sh.Lines
	return Result{Object: objectOf(receipt), Created: true}
}
