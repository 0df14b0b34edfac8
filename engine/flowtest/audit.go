package flowtest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
)

// auditChecks runs the audit twice (it must not change what it reads) and
// returns the checks it reports, in report order.
func (h *Harness) auditChecks() ([]string, audit.Report) {
	h.T.Helper()
	var checks []string
	var rep audit.Report
	for range 2 {
		var err error
		rep, err = audit.Verify(ctx, h.Store)
		if err != nil {
			h.T.Fatalf("verify: %v", err)
		}
		checks = checks[:0]
		for _, d := range rep.Differences {
			checks = append(checks, d.Check)
		}
	}
	return checks, rep
}

// testAuditInboundClean: open transfers and purchase orders, partly
// received, and others received in full or cancelled, leave clean books;
// only the open ones count.
func testAuditInboundClean(t *testing.T, h *Harness) {
	h.SKU("a")
	h.SKU("b")
	h.Location("L1", 1)
	h.Location("L2", 2)
	h.Receive("a", "L1", 20)

	open := object[stockd.TransferDoc](t, h.Do(transferCmd("a", "L1", "L2", 6)))
	h.MustDo(transferReceipt(open.ID, 2))
	full := object[stockd.TransferDoc](t, h.Do(transferCmd("a", "L1", "L2", 3)))
	h.MustDo(transferReceipt(full.ID, 3))
	gone := object[stockd.TransferDoc](t, h.Do(transferCmd("a", "L1", "L2", 4)))
	h.MustDo(transferReceipt(gone.ID, 1))
	h.MustDo(transferCancel(gone.ID))
	h.wantCounters("a", "L2", stockd.Counters{OnHand: 6, InTransit: 4})

	po := object[stockd.PurchaseOrderDoc](t, h.Do(poCmd("PO-A",
		stockd.POLineRequest{SKU: "a", Location: "L2", Quantity: 5}, stockd.POLineRequest{SKU: "b", Quantity: 7})))
	h.MustDo(poReceipt(po.ID, stockd.POLineRequest{SKU: "b", Quantity: 3}))
	dropped := object[stockd.PurchaseOrderDoc](t, h.Do(poCmd("PO-B", stockd.POLineRequest{SKU: "b", Quantity: 9})))
	h.MustDo(poReceipt(dropped.ID, stockd.POLineRequest{SKU: "b", Quantity: 1}))
	h.MustDo(poCancel(dropped.ID))
	done := object[stockd.PurchaseOrderDoc](t, h.Do(poCmd("PO-C", stockd.POLineRequest{SKU: "a", Location: "L2", Quantity: 2})))
	h.MustDo(poReceipt(done.ID, stockd.POLineRequest{SKU: "a", Location: "L2", Quantity: 2}))
	h.wantCounters("a", "L2", stockd.Counters{OnHand: 8, InTransit: 4, Incoming: 5})
	h.wantCounters("b", "default", stockd.Counters{OnHand: 4, Incoming: 4})

	rep := h.Verify()
	if rep.OpenTransfers != 1 || rep.OpenOrders != 1 {
		t.Fatalf("report counts %d open transfers and %d open orders, want 1 and 1", rep.OpenTransfers, rep.OpenOrders)
	}
}

// testAuditInboundReports: a position whose in_transit disagrees with its
// transfers, and a purchase order whose open quantity disagrees with the
// position's incoming, are reported (never fixed).
func testAuditInboundReports(t *testing.T, h *Harness) {
	h.SKU("a")
	h.SKU("b")
	h.Location("L1", 1)
	h.Location("L2", 2)
	h.Receive("a", "L1", 10)
	tr := object[stockd.TransferDoc](t, h.Do(transferCmd("a", "L1", "L2", 6)))
	h.MustDo(transferReceipt(tr.ID, 2))
	po := object[stockd.PurchaseOrderDoc](t, h.Do(poCmd("PO-X", stockd.POLineRequest{SKU: "b", Quantity: 5})))
	h.Verify()

	// in_transit at L2 one above what the transfer says is outstanding.
	key := stockd.PositionKey{SKU: "a", Location: "L2", Pool: stockd.PoolDefault}
	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Write(ctx, &stockd.BatchWrites{Positions: []stockd.Position{{PositionKey: key, Counters: stockd.Counters{OnHand: 2, InTransit: 5}}}}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	checks, rep := h.auditChecks()
	if !slices.Equal(checks, []string{"ledger_sum", "ledger_last", "inbound"}) {
		t.Fatalf("verify found %v, want ledger_sum, ledger_last and inbound", checks)
	}
	inbound := rep.Differences[2]
	if inbound.Position != key || inbound.Snapshot.InTransit != 5 || inbound.Expected.InTransit != 4 {
		t.Fatalf("inbound difference %+v, want in_transit 5 where the transfer says 4", inbound)
	}
	if c := h.Counters("a", "L2"); c.InTransit != 5 {
		t.Fatalf("verify changed the books: %+v", c)
	}

	// The order says 2 are open where the position's incoming (and the
	// ledger) say 5: only the order check sees it.
	doc, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocPurchaseOrder, ID: po.ID})
	if err != nil {
		t.Fatal(err)
	}
	po.Lines[0].Received = 3
	doc.Body = mustMarshal(t, po)
	doc.Version++
	if err := h.WriteDocs(doc); err != nil {
		t.Fatal(err)
	}
	checks, rep = h.auditChecks()
	if !slices.Equal(checks, []string{"ledger_sum", "ledger_last", "inbound", "inbound"}) {
		t.Fatalf("verify found %v, want the transfer's three and the order's inbound", checks)
	}
	order := rep.Differences[3]
	if order.Position.SKU != "b" || order.Snapshot.Incoming != 5 || order.Expected.Incoming != 2 {
		t.Fatalf("order difference %+v, want incoming 5 where the order says 2", order)
	}
	if rep.OpenTransfers != 1 || rep.OpenOrders != 1 {
		t.Fatalf("report counts %d open transfers and %d open orders, want 1 and 1", rep.OpenTransfers, rep.OpenOrders)
	}

	// A document the audit cannot read is an error, not a difference.
	doc.Body = json.RawMessage(`{"lines": 7}`)
	doc.Version++
	if err := h.WriteDocs(doc); err != nil {
		t.Fatal(err)
	}
	if _, err := audit.Verify(ctx, h.Store); err == nil {
		t.Fatal("verify of an undecodable purchase order succeeded")
	}
}
