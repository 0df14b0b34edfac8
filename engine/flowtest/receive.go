package flowtest

import (
	"testing"

	"github.com/stockd/stockd"
)

// receiveInto receives stock straight into a position of any pool.
func (h *Harness) receiveInto(k stockd.PositionKey, q int64) {
	h.T.Helper()
	h.MustDo(stockd.Command{Op: &stockd.Receive{Position: k, Quantity: q}})
}

func testReceivePositions(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Location("far", 9)
	h.Location("near", 1)
	h.Receive("a", "far", 5)
	h.Receive("a", "near", 2)
	h.Receive("a", "near", 3)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Receive{
		Position: stockd.PositionKey{SKU: "ghost"}, Quantity: 1}}), stockd.CodeUnknownSKU)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.Receive{
		Position: stockd.PositionKey{SKU: "a", Location: "nowhere"}, Quantity: 1}}), stockd.CodeUnknownLocation)
	ps, err := h.Store.PositionListBySKU(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0].Location != "near" || ps[0].OnHand != 5 || ps[1].Location != "far" || ps[1].OnHand != 5 {
		t.Fatalf("positions = %+v, want near(5) then far(5)", ps)
	}
	// A 6-unit line fits nowhere whole; a 4-unit line goes to near first.
	WantCode(t, h.Reserve(line("a", 6)), stockd.CodeInsufficientStock)
	res := h.Reserve(line("a", 4))
	if res.Err != nil || res.Reservation.Lines[0].Location != "near" {
		t.Fatalf("reserve = %+v, want placed at near", res)
	}
	h.Verify()
}
