package stockd

import (
	"strings"
	"testing"
	"time"
)

// TestNormalizeFlow checks the bounds of every flow operation: each bad
// input is refused before storage, naming its field.
func TestNormalizeFlow(t *testing.T) {
	many := func(n int) []POLineRequest {
		lines := make([]POLineRequest, n)
		for i := range lines {
			lines[i] = POLineRequest{SKU: "a", Location: strings.Repeat("l", i%60+1), Quantity: 1}
		}
		return lines
	}
	manyReturns := make([]ReturnLine, LinesPerReservationMax+1)
	for i := range manyReturns {
		manyReturns[i] = ReturnLine{SKU: "a", Quantity: 1}
	}
	at := time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name  string
		op    Operation
		field string
	}{
		{"return without lines", &Return{ReservationID: "r"}, "lines"},
		{"return with too many lines", &Return{ReservationID: "r", Lines: manyReturns}, "lines"},
		{"return of nothing", &Return{ReservationID: "r", Lines: []ReturnLine{{SKU: "a"}}}, "quantity"},
		{"return of a bad reservation id", &Return{ReservationID: "a b", Lines: []ReturnLine{{SKU: "a", Quantity: 1}}}, "reservation_id"},
		{"return reference too long", &Return{ReservationID: "r", Lines: []ReturnLine{{SKU: "a", Quantity: 1}}, Reference: strings.Repeat("r", ReferenceLengthMax+1)}, "reference"},
		{"release above the maximum", &QuarantineRelease{Position: PositionKey{SKU: "a"}, Quantity: QuantityMax + 1}, "quantity"},
		{"scrap with an unknown reason", &QuarantineScrap{Position: PositionKey{SKU: "a"}, Quantity: 1, Reason: "whim"}, "reason"},
		{"move to the same state", &StockMove{Position: PositionKey{SKU: "a"}, From: StateAvailable, To: StateAvailable, Quantity: 1}, "to"},
		{"move from an unknown state", &StockMove{Position: PositionKey{SKU: "a"}, From: "reserved", To: StateAvailable, Quantity: 1}, "from"},
		{"shipment without lines", &Shipment{}, "lines"},
		{"shipment merged above the maximum", &Shipment{Lines: []ShipmentLine{{SKU: "a", Quantity: QuantityMax}, {SKU: "a", Quantity: 1}}}, "quantity"},
		{"transfer to itself", &Transfer{SKU: "a", FromLocation: "w1", ToLocation: "w1", Quantity: 1}, "to_location"},
		{"transfer without a source", &Transfer{SKU: "a", ToLocation: "w1", Quantity: 1}, "from_location"},
		{"transfer receipt of nothing", &TransferReceipt{TransferID: "t"}, "quantity"},
		{"order without a supplier", &PurchaseOrder{ExpectedAt: at, Lines: many(1)}, "supplier"},
		{"order without a date", &PurchaseOrder{Supplier: "Acme", Lines: many(1)}, "expected_at"},
		{"order with too many lines", &PurchaseOrder{Supplier: "Acme", ExpectedAt: at, Lines: many(PurchaseOrderLinesMax + 1)}, "lines"},
		{"order with a bad id", &PurchaseOrder{ID: "a/b", Supplier: "Acme", ExpectedAt: at, Lines: many(1)}, "id"},
		{"order receipt without lines", &PurchaseOrderReceipt{OrderID: "o"}, "lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.op.normalize()
			if err == nil || err.Code != CodeInvalidInput || err.Field != tc.field {
				t.Fatalf("normalize = %v, want invalid_input on %s", err, tc.field)
			}
		})
	}
}

// flowCommand normalizes op into a command under key, as the engine would.
func flowCommand(t *testing.T, key string, op Operation) Command {
	t.Helper()
	c := Command{IdempotencyKey: key, RequestHash: key, Op: op}
	if err := c.Normalize(); err != nil {
		t.Fatal(err)
	}
	return c
}

// confirmedState holds a confirmed reservation r1 of 5 a at w1.
func confirmedState(t *testing.T) *BatchState {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 5})
	res := s.Apply([]Command{reserve("k0", LineRequest{SKU: "a", Location: "w1", Quantity: 5})})
	if res[0].Err != nil {
		t.Fatal(res[0].Err)
	}
	r := s.Reservations["r1"]
	s.move(r, StatusConfirmed, BusinessConfirm, "", "")
	return s
}

// TestRefundsNeedTheLock shows what the engine/flowtest refund race guards
// against: two refunds decided against their own copies of the same state
// (check, then act, with no lock between) both pass and give back more
// than was committed; decided in turn against the locked state, the
// second is refused.
func TestRefundsNeedTheLock(t *testing.T) {
	refund := func(key string) Command {
		return flowCommand(t, key, &Return{ReservationID: "r1", Lines: []ReturnLine{{SKU: "a", Quantity: 3}}})
	}
	first, second := confirmedState(t), confirmedState(t)
	naive := []Result{first.Apply([]Command{refund("x")})[0], second.Apply([]Command{refund("y")})[0]}
	if naive[0].Err != nil || naive[1].Err != nil {
		t.Fatalf("naive refunds: %v, %v; want both to pass", naive[0].Err, naive[1].Err)
	}
	if given := first.Reservations["r1"].Lines[0].Refunded + second.Reservations["r1"].Lines[0].Refunded; given <= 5 {
		t.Fatalf("naive refunds gave back %d, want more than the 5 committed", given)
	}

	s := confirmedState(t)
	res := s.Apply([]Command{refund("x"), refund("y")})
	if res[0].Err != nil || res[1].Err == nil || res[1].Err.Code != CodeQuantityExceeded {
		t.Fatalf("serial refunds: %v, %v; want ok, quantity_exceeded", res[0].Err, res[1].Err)
	}
}

// TestFlowStepsWithinOneBatch: steps on one document in one batch see each
// other's writes: receipts get distinct business ids, and a second cancel
// changes nothing.
func TestFlowStepsWithinOneBatch(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 5})
	at := time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
	res := s.Apply([]Command{
		flowCommand(t, "t", &Transfer{SKU: "a", FromLocation: "w1", ToLocation: "w2", Quantity: 4}),
		flowCommand(t, "t1", &TransferReceipt{TransferID: "r1", Quantity: 1}),
		flowCommand(t, "t2", &TransferReceipt{TransferID: "r1", Quantity: 3}),
		flowCommand(t, "t3", &TransferReceipt{TransferID: "r1", Quantity: 1}),
		flowCommand(t, "po", &PurchaseOrder{ID: "po", Supplier: "Acme", ExpectedAt: at, Lines: []POLineRequest{{SKU: "a", Location: "w1", Quantity: 9}}}),
		flowCommand(t, "c1", &PurchaseOrderCancel{OrderID: "po"}),
		flowCommand(t, "c2", &PurchaseOrderCancel{OrderID: "po"}),
	})
	for i, want := range []string{"", "", "", CodeQuantityExceeded, "", "", ""} {
		got := ""
		if res[i].Err != nil {
			got = res[i].Err.Code
		}
		if got != want {
			t.Fatalf("command %d: %v, want %q", i, res[i].Err, want)
		}
	}
	ids := map[string]int{}
	for _, e := range s.Writes().Ledger {
		ids[e.BusinessType+" "+e.BusinessID]++
	}
	if ids["transfer_receipt r1/r1"] != 1 || ids["transfer_receipt r1/r2"] != 1 || ids["po_cancel po"] != 1 {
		t.Fatalf("ledger business ids %v", ids)
	}
	if got := *s.Positions[pk("a", "w2")]; got != (Counters{OnHand: 4}) {
		t.Fatalf("w2 = %+v, want 4 on hand, nothing in transit", got)
	}
	if got := *s.Positions[pk("a", "w1")]; got != (Counters{OnHand: 1}) {
		t.Fatalf("w1 = %+v, want 1 on hand, nothing incoming", got)
	}
}
