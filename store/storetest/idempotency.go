package storetest

// The idempotency records Tx.Write stores and a new engine reads back.

import (
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/engine/flowtest"
)

func testIdempotencySurvivesRestart(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Receive("a", "default", 5)
	cmd := stockd.Command{IdempotencyKey: "order-1", RequestHash: "h1",
		Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("a", 2)}}}
	first := h.MustDo(cmd)
	other := engine.New(engine.Config{Store: h.Store, Now: h.Clock.Now})
	defer other.Close()
	again, err := other.Submit(ctx, cmd)
	if err != nil || !again.Replayed || again.Reservation.ID != first.Reservation.ID {
		t.Fatalf("replay = %+v, %v; want the first answer", again, err)
	}
	cmd.RequestHash = "h2"
	reused, err := other.Submit(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	flowtest.WantCode(t, reused, stockd.CodeIdempotencyKeyReused)
	if c := h.Counters("a", "default"); c.Reserved != 2 {
		t.Fatalf("reserved = %d, want 2", c.Reserved)
	}
}
