package flowtest

import (
	"testing"

	"github.com/stockd/stockd"
)

func transferCmd(sku, from, to string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.Transfer{SKU: sku, FromLocation: from, ToLocation: to, Quantity: q}}
}

func transferReceipt(id string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.TransferReceipt{TransferID: id, Quantity: q}}
}

func transferCancel(id string) stockd.Command {
	return stockd.Command{Op: &stockd.TransferCancel{TransferID: id}}
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
	if err != nil || !JSONEqual(doc.Body, string(mustMarshal(t, done))) {
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
