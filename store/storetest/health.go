package storetest

import (
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
)

// testHealthWrite: the health probe's write commits, again and again, and
// leaves the books alone.
func testHealthWrite(t *testing.T, h *flowtest.Harness) {
	h.SKU("a")
	h.Receive("a", "default", 3)
	for i := range 3 {
		if err := h.Store.HealthWrite(ctx, time.Now().Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatalf("health write %d: %v", i, err)
		}
	}
	if c := h.Counters("a", "default"); c != (stockd.Counters{OnHand: 3}) {
		t.Fatalf("counters = %+v after health writes", c)
	}
}
