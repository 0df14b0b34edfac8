package flowtest

import (
	"testing"
	"time"

	"github.com/stockd/stockd"
)

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
