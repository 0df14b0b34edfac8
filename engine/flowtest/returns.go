package flowtest

import (
	"testing"

	"github.com/stockd/stockd"
)

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
