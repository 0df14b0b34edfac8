package flowtest

import (
	"testing"

	"github.com/stockd/stockd"
)

func allocateCommand(sku, location, from, to string, q int64) stockd.Command {
	return stockd.Command{Op: &stockd.Allocate{SKU: sku, Location: location, FromPool: from, ToPool: to, Quantity: q}}
}

// testAllocation: available moves between pools once per key, with an
// entry at both ends; never more than is available, never into a pool
// that does not exist.
func testAllocation(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	h.MustDo(poolCommand("offline", nil, nil))
	h.Reserve(line("a", 3))

	cmd := allocateCommand("a", "", "", "offline", 4)
	cmd.IdempotencyKey, cmd.RequestHash = "alloc-1", "alloc-1"
	res := h.MustDo(cmd)
	got := object[stockd.Allocation](t, res)
	if got.From.OnHand != 6 || got.From.Reserved != 3 || got.To.OnHand != 4 || got.FromPool != stockd.PoolDefault || got.Location != stockd.LocationDefault {
		t.Fatalf("allocation = %+v", got)
	}
	if again := h.MustDo(cmd); !again.Replayed {
		t.Fatal("the same key applied twice")
	}
	if c := h.poolCounters("a", "default", "offline"); c.OnHand != 4 {
		t.Fatalf("offline = %+v, want on_hand 4", c)
	}
	// 3 of the 6 left are reserved.
	WantCode(t, h.Do(allocateCommand("a", "", "", "offline", 4)), stockd.CodeInsufficientStock)
	WantCode(t, h.Do(allocateCommand("a", "", "", "nowhere", 1)), stockd.CodeNotFound)
	WantCode(t, h.Do(allocateCommand("a", "", "offline", "offline", 1)), stockd.CodeInvalidInput)
	// Back to normal.
	h.MustDo(allocateCommand("a", "", "offline", stockd.PoolDefault, 1))
	if c := h.Counters("a", "default"); c.OnHand != 7 {
		t.Fatalf("normal = %+v, want on_hand 7", c)
	}
	if entries := h.ledgerOf("a", stockd.BusinessAllocation); len(entries) != 4 {
		t.Fatalf("%d allocation entries, want 4 (two moves, two ends each)", len(entries))
	}
	h.Verify()
}
