package storetest

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

// flowCases are the conformance cases of the flow features.
func flowCases() []struct {
	name string
	fn   func(t *testing.T, h *Harness)
} {
	cases := []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		{"FlowRefundBeforeShipment", testFlowRefund},
		{"FlowRefundRace", testFlowRefundRace},
		{"FlowReturnAfterShipment", testFlowReturn},
		{"FlowQuarantine", testFlowQuarantine},
		{"FlowMoves", testFlowMoves},
		{"FlowShipment", testFlowShipment},
		{"FlowTransfer", testFlowTransfer},
		{"FlowTransferReceiptRace", testFlowTransferReceiptRace},
		{"FlowPurchaseOrder", testFlowPurchaseOrder},
		{"FlowPurchaseOrderCancelRace", testFlowPurchaseOrderCancelRace},
		{"FlowPurchaseOrderCreateRace", testFlowPurchaseOrderCreateRace},
		{"FlowProperty", testFlowProperty},
	}
	// The audit's checks of the flows' documents live beside them.
	return append(cases, auditCases()...)
}

// doKey submits cmd under key, so that a test can retry it.
func (h *Harness) doKey(key string, cmd stockd.Command) stockd.Result {
	h.T.Helper()
	cmd.IdempotencyKey, cmd.RequestHash = key, key
	return h.Do(cmd)
}

// object decodes an operation's answer.
func object[T any](t testing.TB, res stockd.Result) T {
	t.Helper()
	var v T
	if res.Err != nil {
		t.Fatalf("result error %v, want an answer", res.Err)
	}
	if err := json.Unmarshal(res.Object, &v); err != nil {
		t.Fatalf("decode %s: %v", res.Object, err)
	}
	return v
}

// ledgerOf returns the SKU's ledger entries of one business type.
func (h *Harness) ledgerOf(sku, business string) []stockd.LedgerEntry {
	h.T.Helper()
	all, err := h.Store.LedgerList(ctx, storeLedger(sku, 0, stockd.PageSizeMax))
	if err != nil {
		h.T.Fatalf("ledger of %s: %v", sku, err)
	}
	var out []stockd.LedgerEntry
	for _, e := range all {
		if e.BusinessType == business {
			out = append(out, e)
		}
	}
	return out
}

// wantCounters fails t unless the normal-pool position holds want.
func (h *Harness) wantCounters(sku, location string, want stockd.Counters) {
	h.T.Helper()
	if got := h.Counters(sku, location); got != want {
		h.T.Fatalf("%s at %s = %+v, want %+v", sku, location, got, want)
	}
}

func returnCmd(reservation string, restock bool, lines ...stockd.ReturnLine) stockd.Command {
	return stockd.Command{Op: &stockd.Return{ReservationID: reservation, Lines: lines, Restock: restock}}
}

func returnLine(sku string, q int64) stockd.ReturnLine {
	return stockd.ReturnLine{SKU: sku, Quantity: q}
}

// committed reserves and confirms q of sku in one step.
func (h *Harness) committed(sku string, q int64) stockd.Reservation {
	h.T.Helper()
	res := h.MustDo(stockd.Command{Op: &stockd.Reserve{Lines: []stockd.LineRequest{line(sku, q)}, Commit: true}})
	return *res.Reservation
}

// testFlowRefund: a refund before shipment gives committed stock back, line
// by line, never past what is committed; a retry replays; refunding the
// last unit releases the reservation, and a partly refunded one ships only
// the rest.
func testFlowRefund(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	r := h.committed("a", 5)

	first := h.doKey("refund-1", returnCmd(r.ID, false, returnLine("a", 2)))
	receipt := object[stockd.ReturnReceipt](t, first)
	if receipt.Type != stockd.ReturnTypeRefund || receipt.Reservation.Lines[0].Refunded != 2 || receipt.Reservation.Status != stockd.StatusConfirmed {
		t.Fatalf("refund: %+v", receipt)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 10, Committed: 3})
	again := h.doKey("refund-1", returnCmd(r.ID, false, returnLine("a", 2)))
	if !again.Replayed || string(again.Object) != string(first.Object) {
		t.Fatalf("retry: replayed %v %s, want the first answer %s", again.Replayed, again.Object, first.Object)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 10, Committed: 3})
	WantCode(t, h.Do(returnCmd(r.ID, false, returnLine("a", 4))), stockd.CodeQuantityExceeded)
	// Lines naming one reservation line add up before the check.
	WantCode(t, h.Do(returnCmd(r.ID, false, returnLine("a", 2), returnLine("a", 2))), stockd.CodeQuantityExceeded)
	WantCode(t, h.Do(returnCmd(r.ID, false, returnLine("b", 1))), stockd.CodeUnprocessable)
	WantCode(t, h.Do(returnCmd("no-such-id", false, returnLine("a", 1))), stockd.CodeNotFound)

	last := object[stockd.ReturnReceipt](t, h.Do(returnCmd(r.ID, false, returnLine("a", 1), returnLine("a", 2))))
	if last.Reservation.Status != stockd.StatusReleased || last.Reservation.ReleaseReason != stockd.ReleaseRefunded {
		t.Fatalf("last refund: reservation %+v, want released as refunded", last.Reservation)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 10})
	WantCode(t, h.Transition(stockd.KindFulfil, r.ID), stockd.CodeInvalidTransition)
	refunds := h.ledgerOf("a", stockd.BusinessRefund)
	if len(refunds) != 2 || refunds[0].BusinessID != receipt.ID || refunds[0].Delta != (stockd.Counters{Committed: -2}) ||
		refunds[1].BusinessID != last.ID || refunds[1].Delta != (stockd.Counters{Committed: -3}) || refunds[1].ReservationID != r.ID {
		t.Fatalf("refund entries = %+v", refunds)
	}

	partial := h.committed("a", 4)
	h.MustDo(returnCmd(partial.ID, false, returnLine("a", 1)))
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindFulfil, ReservationID: partial.ID}})
	h.wantCounters("a", "default", stockd.Counters{OnHand: 7})
	// A pending reservation is released, not refunded.
	pending := h.Reserve(line("a", 1)).Reservation
	res := h.Do(returnCmd(pending.ID, false, returnLine("a", 1)))
	WantCode(t, res, stockd.CodeInvalidTransition)
	if res.Err.Status != stockd.StatusPending {
		t.Fatalf("refund of a pending reservation: status %q, want pending", res.Err.Status)
	}
	h.Verify()
}

// testFlowRefundRace: parallel refunds of one unit each on a reservation of
// five: exactly five succeed, whatever the interleaving.
func testFlowRefundRace(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	r := h.committed("a", 5)
	results := h.raceCommands(12, func(int) stockd.Command { return returnCmd(r.ID, false, returnLine("a", 1)) })
	if ok := countPassed(t, results, stockd.CodeQuantityExceeded, stockd.CodeInvalidTransition); ok != 5 {
		t.Fatalf("%d refunds succeeded, want 5", ok)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 5})
	if n := len(h.ledgerOf("a", stockd.BusinessRefund)); n != 5 {
		t.Fatalf("%d refund entries, want 5", n)
	}
	h.Verify()
}

// testFlowReturn: returns after shipment bring units back into on_hand and
// quarantine (or straight to available with restock), each return under
// its own business id, never more than shipped.
func testFlowReturn(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	r := h.committed("a", 5)
	WantCode(t, h.Transition(stockd.KindFulfil, "no-such-id"), stockd.CodeNotFound)
	h.MustDo(stockd.Command{Op: &stockd.Transition{Action: stockd.KindFulfil, ReservationID: r.ID}})
	h.wantCounters("a", "default", stockd.Counters{OnHand: 5})

	first := h.doKey("return-1", returnCmd(r.ID, false, returnLine("a", 2)))
	receipt := object[stockd.ReturnReceipt](t, first)
	if receipt.Type != stockd.ReturnTypeReturn || receipt.Reservation.Lines[0].Returned != 2 || receipt.Reservation.Status != stockd.StatusFulfilled {
		t.Fatalf("return: %+v", receipt)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 7, Quarantined: 2})
	if again := h.doKey("return-1", returnCmd(r.ID, false, returnLine("a", 2))); !again.Replayed {
		t.Fatal("retry of a return was not a replay")
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 7, Quarantined: 2})
	restocked := object[stockd.ReturnReceipt](t, h.Do(returnCmd(r.ID, true, returnLine("a", 2))))
	h.wantCounters("a", "default", stockd.Counters{OnHand: 9, Quarantined: 2})
	WantCode(t, h.Do(returnCmd(r.ID, false, returnLine("a", 2))), stockd.CodeQuantityExceeded)
	returns := h.ledgerOf("a", stockd.BusinessReturn)
	if len(returns) != 2 || returns[0].BusinessID != receipt.ID || returns[1].BusinessID != restocked.ID ||
		returns[0].Delta != (stockd.Counters{OnHand: 2, Quarantined: 2}) || returns[1].Delta != (stockd.Counters{OnHand: 2}) {
		t.Fatalf("return entries = %+v", returns)
	}
	h.Verify()
}

func quarantineRelease(sku string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.QuarantineRelease{Position: stockd.PositionKey{SKU: sku}, Quantity: q}}
}

func quarantineScrap(sku string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.QuarantineScrap{Position: stockd.PositionKey{SKU: sku}, Quantity: q}}
}

func stockMove(sku, from, to string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.StockMove{Position: stockd.PositionKey{SKU: sku}, From: from, To: to, Quantity: q}}
}

// testFlowQuarantine: quarantined units are released back to available or
// scrapped out of on_hand (reason damage), never more than quarantined,
// each once per key.
func testFlowQuarantine(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	h.MustDo(stockMove("a", stockd.StateAvailable, stockd.StateQuarantined, 4))
	h.wantCounters("a", "default", stockd.Counters{OnHand: 10, Quarantined: 4})

	h.doKey("release-1", quarantineRelease("a", 1))
	h.doKey("release-1", quarantineRelease("a", 1))
	h.wantCounters("a", "default", stockd.Counters{OnHand: 10, Quarantined: 3})
	h.doKey("scrap-1", quarantineScrap("a", 2))
	if again := h.doKey("scrap-1", quarantineScrap("a", 2)); !again.Replayed {
		t.Fatal("retry of a scrap was not a replay")
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 8, Quarantined: 1})
	WantCode(t, h.Do(quarantineScrap("a", 2)), stockd.CodeQuantityExceeded)
	WantCode(t, h.Do(quarantineRelease("a", 2)), stockd.CodeQuantityExceeded)
	WantCode(t, h.Do(quarantineRelease("b", 1)), stockd.CodeUnknownSKU)
	scraps := h.ledgerOf("a", stockd.BusinessScrap)
	if len(scraps) != 1 || scraps[0].Reason != stockd.ReasonDamage || scraps[0].BusinessID != "scrap-1" ||
		scraps[0].Delta != (stockd.Counters{OnHand: -2, Quarantined: -2}) {
		t.Fatalf("scrap entries = %+v", scraps)
	}
	if releases := h.ledgerOf("a", stockd.BusinessQuarantineRelease); len(releases) != 1 || releases[0].Delta != (stockd.Counters{Quarantined: -1}) {
		t.Fatalf("release entries = %+v", releases)
	}
	h.Verify()
}

// testFlowMoves: moves shift stock between available and quarantined in
// both directions, bounded by what the source state holds.
func testFlowMoves(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	h.Reserve(line("a", 2))
	WantCode(t, h.Do(stockMove("a", stockd.StateAvailable, stockd.StateQuarantined, 4)), stockd.CodeInsufficientStock)
	h.MustDo(stockMove("a", stockd.StateAvailable, stockd.StateQuarantined, 3))
	h.wantCounters("a", "default", stockd.Counters{OnHand: 5, Reserved: 2, Quarantined: 3})
	WantCode(t, h.Do(stockMove("a", stockd.StateQuarantined, stockd.StateAvailable, 4)), stockd.CodeQuantityExceeded)
	res := h.MustDo(stockMove("a", stockd.StateQuarantined, stockd.StateAvailable, 1))
	if res.Position.Quarantined != 2 || res.Position.Available() != 1 {
		t.Fatalf("move answer %+v", res.Position)
	}
	if moves := h.ledgerOf("a", stockd.BusinessMove); len(moves) != 2 {
		t.Fatalf("%d move entries, want 2", len(moves))
	}
	h.Verify()
}

// testFlowShipment: a SKU that deducts at shipment ships out of on_hand
// with no hold, refused when available is short; other SKUs ship through
// fulfil.
func testFlowShipment(t *testing.T, h *Harness) {
	h.MustDo(stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: "s", Deduction: stockd.DeductionAtShipment}}})
	h.SKU("o")
	h.Receive("s", "default", 5)
	h.Receive("o", "default", 5)
	ship := func(sku string, q int64) stockd.Command {
		return stockd.Command{Op: &stockd.Shipment{Lines: []stockd.ShipmentLine{{SKU: sku, Quantity: q}}}}
	}
	first := h.doKey("ship-1", ship("s", 3))
	receipt := object[stockd.ShipmentReceipt](t, first)
	if len(receipt.Positions) != 1 || receipt.Positions[0].OnHand != 2 || len(receipt.Shipped) != 1 {
		t.Fatalf("shipment: %+v", receipt)
	}
	if again := h.doKey("ship-1", ship("s", 3)); !again.Replayed {
		t.Fatal("retry of a shipment was not a replay")
	}
	h.wantCounters("s", "default", stockd.Counters{OnHand: 2})
	res := h.Do(ship("s", 3))
	WantCode(t, res, stockd.CodeInsufficientStock)
	if len(res.Err.Lines) != 1 || res.Err.Lines[0].Available != 2 {
		t.Fatalf("shortfall %+v", res.Err.Lines)
	}
	WantCode(t, h.Do(ship("o", 1)), stockd.CodeDeductionTiming)
	h.wantCounters("o", "default", stockd.Counters{OnHand: 5})
	if entries := h.ledgerOf("s", stockd.BusinessShipment); len(entries) != 1 || entries[0].BusinessID != receipt.ID {
		t.Fatalf("shipment entries = %+v", entries)
	}
	h.Verify()
}

func transferCmd(sku, from, to string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.Transfer{SKU: sku, FromLocation: from, ToLocation: to, Quantity: q}}
}

func transferReceipt(id string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.TransferReceipt{TransferID: id, Quantity: q}}
}

// testFlowTransfer: a transfer takes available stock out of the source
// into the target's in_transit (visible, not sellable); partial receipts,
// each once per key and under its own business id, bring it into on_hand;
// never more than is in transit, never to an inactive location.
func testFlowTransfer(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Location("L1", 1)
	h.Location("L2", 2)
	h.MustDo(stockd.Command{Op: &stockd.LocationCreate{Location: stockd.Location{ID: "closed", Inactive: true}}})
	h.Receive("a", "L1", 10)
	h.Reserve(stockd.LineRequest{SKU: "a", Quantity: 4, Location: "L1"})

	WantCode(t, h.Do(transferCmd("a", "L1", "L2", 7)), stockd.CodeInsufficientStock)
	WantCode(t, h.Do(transferCmd("a", "L1", "closed", 1)), stockd.CodeLocationInactive)
	WantCode(t, h.Do(transferCmd("a", "L1", "nowhere", 1)), stockd.CodeUnknownLocation)
	tr := object[stockd.TransferDoc](t, h.doKey("transfer-1", transferCmd("a", "L1", "L2", 6)))
	if again := h.doKey("transfer-1", transferCmd("a", "L1", "L2", 6)); !again.Replayed {
		t.Fatal("retry of a transfer was not a replay")
	}
	h.wantCounters("a", "L1", stockd.Counters{OnHand: 4, Reserved: 4})
	h.wantCounters("a", "L2", stockd.Counters{InTransit: 6})
	// In-transit stock is never sellable.
	WantCode(t, h.Reserve(stockd.LineRequest{SKU: "a", Quantity: 1, Location: "L2"}), stockd.CodeInsufficientStock)

	// A receipt may still name the transfer's SKU; it need not (below).
	h.doKey("receipt-1", transferReceipt(tr.ID, 2))
	h.doKey("receipt-1", transferReceipt(tr.ID, 2))
	h.wantCounters("a", "L2", stockd.Counters{OnHand: 2, InTransit: 4})
	WantCode(t, h.Do(transferReceipt(tr.ID, 5)), stockd.CodeQuantityExceeded)
	WantCode(t, h.Do(transferReceipt("no-such-id", 1)), stockd.CodeNotFound)
	done := object[stockd.TransferDoc](t, h.Do(transferReceipt(tr.ID, 4)))
	if done.Status != stockd.TransferReceived || done.Received != 6 || done.Receipts != 2 {
		t.Fatalf("after the last receipt: %+v", done)
	}
	h.wantCounters("a", "L2", stockd.Counters{OnHand: 6})
	WantCode(t, h.Do(transferReceipt(tr.ID, 1)), stockd.CodeQuantityExceeded)
	// Emptying a location that was switched off is what transfers are for.
	h.Receive("a", "closed", 2)
	h.MustDo(transferCmd("a", "closed", "L2", 2))
	h.wantCounters("a", "closed", stockd.Counters{})

	doc, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocTransfer, ID: tr.ID})
	if err != nil || !jsonEqual(doc.Body, string(mustMarshal(t, done))) {
		t.Fatalf("stored transfer %s, %v; want %+v", doc.Body, err, done)
	}
	receipts := h.ledgerOf("a", stockd.BusinessTransferReceipt)
	if len(receipts) != 2 || receipts[0].BusinessID != tr.ID+"/r1" || receipts[1].BusinessID != tr.ID+"/r2" ||
		receipts[1].Delta != (stockd.Counters{OnHand: 4, InTransit: -4}) {
		t.Fatalf("transfer receipt entries = %+v", receipts)
	}
	if sent := h.ledgerOf("a", stockd.BusinessTransfer); len(sent) != 4 {
		t.Fatalf("%d transfer entries, want 4 (out of the source, into transit at L2, twice)", len(sent))
	}

	// A cancel sends what is still in transit back, once.
	h.Receive("a", "L1", 3)
	tr2 := object[stockd.TransferDoc](t, h.Do(transferCmd("a", "L1", "L2", 3)))
	h.MustDo(transferReceipt(tr2.ID, 1))
	cancelled := object[stockd.TransferDoc](t, h.Do(transferCancel(tr2.ID)))
	if cancelled.Status != stockd.TransferCancelled || cancelled.Cancelled != 2 || cancelled.Outstanding() != 0 {
		t.Fatalf("cancelled transfer: %+v", cancelled)
	}
	h.wantCounters("a", "L1", stockd.Counters{OnHand: 6, Reserved: 4})
	// What is still in transit at L2 is the transfer out of closed.
	h.wantCounters("a", "L2", stockd.Counters{OnHand: 7, InTransit: 2})
	if again := h.Do(transferCancel(tr2.ID)); again.Err != nil || string(again.Object) != string(mustMarshal(t, cancelled)) {
		t.Fatalf("cancel again: %+v, want the transfer unchanged", again)
	}
	WantCode(t, h.Do(transferReceipt(tr2.ID, 1)), stockd.CodeQuantityExceeded)
	WantCode(t, h.Do(transferCancel(tr.ID)), stockd.CodeUnprocessable)
	WantCode(t, h.Do(transferCancel("no-such-id")), stockd.CodeNotFound)
	back := 0
	for _, e := range h.ledgerOf("a", stockd.BusinessTransfer) {
		if e.BusinessID == tr2.ID+"/cancel" {
			back++
		}
	}
	if back != 2 {
		t.Fatalf("%d cancel entries, want 2 (out of transit at L2, back into L1)", back)
	}
	h.Verify()
}

func transferCancel(id string) stockd.Command {
	return stockd.Command{Op: &stockd.TransferCancel{TransferID: id}}
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// testFlowTransferReceiptRace: parallel receipts of one unit each against
// a transfer of six: exactly six land, each under its own business id.
func testFlowTransferReceiptRace(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Location("L1", 1)
	h.Location("L2", 2)
	h.Receive("a", "L1", 6)
	tr := object[stockd.TransferDoc](t, h.Do(transferCmd("a", "L1", "L2", 6)))
	results := h.raceCommands(10, func(int) stockd.Command { return transferReceipt(tr.ID, 1) })
	if ok := countPassed(t, results, stockd.CodeQuantityExceeded); ok != 6 {
		t.Fatalf("%d receipts landed, want 6", ok)
	}
	h.wantCounters("a", "L2", stockd.Counters{OnHand: 6})
	ids := map[string]bool{}
	for _, e := range h.ledgerOf("a", stockd.BusinessTransferReceipt) {
		ids[e.BusinessID] = true
	}
	if len(ids) != 6 {
		t.Fatalf("%d distinct receipt business ids, want 6", len(ids))
	}
	h.Verify()
}

func poCmd(id string, lines ...stockd.POLineRequest) stockd.Command {
	return stockd.Command{Op: &stockd.PurchaseOrder{
		ID: id, Supplier: "Acme", ExpectedAt: time.Date(2026, 12, 10, 0, 0, 0, 0, time.UTC), Lines: lines,
	}}
}

func poReceipt(id string, lines ...stockd.POLineRequest) stockd.Command {
	return stockd.Command{Op: &stockd.PurchaseOrderReceipt{OrderID: id, Lines: lines}}
}

func poCancel(id string) stockd.Command {
	return stockd.Command{Op: &stockd.PurchaseOrderCancel{OrderID: id}}
}

// testFlowPurchaseOrder: open quantity shows as incoming (never sellable);
// partial receipts move it into on_hand, never past what is open; cancel
// takes what is still open out of incoming exactly once.
func testFlowPurchaseOrder(t *testing.T, h *Harness) {
	h.SKU("a")
	h.SKU("b")
	h.Location("L1", 1)
	lines := []stockd.POLineRequest{{SKU: "a", Quantity: 6}, {SKU: "b", Location: "L1", Quantity: 4}, {SKU: "a", Quantity: 4}}
	po := object[stockd.PurchaseOrderDoc](t, h.doKey("po-1", poCmd("PO-1", lines...)))
	if len(po.Lines) != 2 || po.Lines[0].Quantity != 10 || po.Lines[0].Location != stockd.LocationDefault || po.Status != stockd.POOpen {
		t.Fatalf("purchase order: %+v, want the two a lines merged", po)
	}
	if again := h.doKey("po-1", poCmd("PO-1", lines...)); !again.Replayed {
		t.Fatal("retry of a purchase order was not a replay")
	}
	WantCode(t, h.Do(poCmd("PO-1", stockd.POLineRequest{SKU: "a", Quantity: 1})), stockd.CodeAlreadyExists)
	WantCode(t, h.Do(poCmd("", stockd.POLineRequest{SKU: "zz", Quantity: 1})), stockd.CodeUnknownSKU)
	h.wantCounters("a", "default", stockd.Counters{Incoming: 10})
	h.wantCounters("b", "L1", stockd.Counters{Incoming: 4})
	WantCode(t, h.Reserve(line("a", 1)), stockd.CodeInsufficientStock)

	h.doKey("po-r1", poReceipt("PO-1", stockd.POLineRequest{SKU: "a", Quantity: 3}, stockd.POLineRequest{SKU: "b", Location: "L1", Quantity: 4}))
	h.doKey("po-r1", poReceipt("PO-1", stockd.POLineRequest{SKU: "a", Quantity: 3}, stockd.POLineRequest{SKU: "b", Location: "L1", Quantity: 4}))
	h.wantCounters("a", "default", stockd.Counters{OnHand: 3, Incoming: 7})
	h.wantCounters("b", "L1", stockd.Counters{OnHand: 4})
	WantCode(t, h.Do(poReceipt("PO-1", stockd.POLineRequest{SKU: "a", Quantity: 8})), stockd.CodeQuantityExceeded)
	WantCode(t, h.Do(poReceipt("PO-1", stockd.POLineRequest{SKU: "b", Quantity: 1})), stockd.CodeUnprocessable)
	WantCode(t, h.Do(poReceipt("PO-9", stockd.POLineRequest{SKU: "a", Quantity: 1})), stockd.CodeNotFound)
	h.MustDo(poReceipt("PO-1", stockd.POLineRequest{SKU: "a", Quantity: 2}))

	cancelled := object[stockd.PurchaseOrderDoc](t, h.Do(poCancel("PO-1")))
	if cancelled.Status != stockd.POCancelled || cancelled.Lines[0].Received != 5 {
		t.Fatalf("cancelled: %+v", cancelled)
	}
	h.wantCounters("a", "default", stockd.Counters{OnHand: 5})
	if again := h.Do(poCancel("PO-1")); again.Err != nil || again.Replayed {
		t.Fatalf("cancel again with a new key: %+v, want the order unchanged", again)
	}
	WantCode(t, h.Do(poReceipt("PO-1", stockd.POLineRequest{SKU: "a", Quantity: 1})), stockd.CodeQuantityExceeded)
	if n := len(h.ledgerOf("a", stockd.BusinessPOCancel)); n != 1 {
		t.Fatalf("%d cancel entries, want 1", n)
	}
	receipts := h.ledgerOf("a", stockd.BusinessPOReceipt)
	if len(receipts) != 2 || receipts[0].BusinessID != "PO-1/r1" || receipts[1].BusinessID != "PO-1/r2" {
		t.Fatalf("receipt entries = %+v", receipts)
	}

	// A fully received order cannot be cancelled.
	full := object[stockd.PurchaseOrderDoc](t, h.Do(poCmd("", stockd.POLineRequest{SKU: "b", Quantity: 2})))
	done := object[stockd.PurchaseOrderDoc](t, h.Do(poReceipt(full.ID, stockd.POLineRequest{SKU: "b", Quantity: 2})))
	if done.Status != stockd.POReceived {
		t.Fatalf("fully received: %+v", done)
	}
	WantCode(t, h.Do(poCancel(full.ID)), stockd.CodeUnprocessable)
	WantCode(t, h.Do(poReceipt(full.ID, stockd.POLineRequest{SKU: "b", Quantity: 1})), stockd.CodeQuantityExceeded)
	h.Verify()
}

// testFlowPurchaseOrderCancelRace: parallel cancels (each with its own key)
// and receipts of one order: incoming leaves once, and what was received
// plus what was cancelled is what was ordered.
func testFlowPurchaseOrderCancelRace(t *testing.T, h *Harness) {
	h.SKU("a")
	po := object[stockd.PurchaseOrderDoc](t, h.Do(poCmd("", stockd.POLineRequest{SKU: "a", Quantity: 20})))
	h.raceCommands(12, func(i int) stockd.Command {
		if i%2 == 0 {
			return poReceipt(po.ID, stockd.POLineRequest{SKU: "a", Quantity: 1})
		}
		return poCancel(po.ID)
	})
	if n := len(h.ledgerOf("a", stockd.BusinessPOCancel)); n != 1 {
		t.Fatalf("%d cancel entries, want 1", n)
	}
	c := h.Counters("a", "default")
	cancelled := h.ledgerOf("a", stockd.BusinessPOCancel)[0].Delta.Incoming
	if c.Incoming != 0 || c.OnHand-cancelled != 20 {
		t.Fatalf("counters %+v with %d cancelled, want received + cancelled = 20", c, -cancelled)
	}
	h.Verify()
}

// testFlowPurchaseOrderCreateRace: parallel creates of one order number
// under different keys: one creates it, the others learn it exists, and
// incoming counts it once.
func testFlowPurchaseOrderCreateRace(t *testing.T, h *Harness) {
	h.SKU("a")
	results := h.raceCommands(8, func(int) stockd.Command { return poCmd("PO-R", stockd.POLineRequest{SKU: "a", Quantity: 7}) })
	if created := countPassed(t, results, stockd.CodeAlreadyExists); created != 1 {
		t.Fatalf("%d creates succeeded, want 1", created)
	}
	h.wantCounters("a", "default", stockd.Counters{Incoming: 7})
	h.Verify()
}
