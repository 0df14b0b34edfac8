package expiry_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/expiry"
	"github.com/stockd/stockd/internal/testdb"
)

// TestCloseEndedCampaigns: a campaign past its end closes itself, once,
// returning its leftovers to normal; one still running, a channel and a
// campaign already closed are left alone.
func TestCloseEndedCampaigns(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		ctx := context.Background()
		s := b.New(t)
		var now atomic.Int64
		start := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
		now.Store(start.UnixNano())
		clock := func() time.Time { return time.Unix(0, now.Load()).UTC() }
		e := engine.New(engine.Config{Store: s, Now: clock})
		defer e.Close()
		h := flowtest.Harness{T: t, Store: s, Engine: e}
		h.SKU("a")
		h.Receive("a", "default", 100)
		campaign := func(id string, ends time.Time) {
			starts := start.Add(-time.Hour)
			h.MustDo(stockd.Command{Op: &stockd.PoolCreate{Pool: stockd.Pool{ID: id, Kind: stockd.PoolCampaign, StartsAt: &starts, EndsAt: &ends}}})
			h.MustDo(stockd.Command{Op: &stockd.Allocate{SKU: "a", Location: "default", FromPool: stockd.PoolDefault, ToPool: id, Quantity: 10}})
		}
		campaign("ends-soon", start.Add(time.Hour))
		campaign("runs-on", start.Add(48*time.Hour))
		h.MustDo(stockd.Command{Op: &stockd.PoolCreate{Pool: stockd.Pool{ID: "web", Kind: stockd.PoolChannel}}})
		h.Reserve(stockd.LineRequest{SKU: "a", Pool: "ends-soon", Quantity: 3})
		now.Add(int64(2 * time.Hour))

		w := expiry.New(expiry.Config{Store: s, Engine: e, Now: clock})
		if n, err := w.CloseEndedCampaigns(ctx); err != nil || n != 1 {
			t.Fatalf("first sweep closed %d, %v; want the ended campaign", n, err)
		}
		if n, err := w.CloseEndedCampaigns(ctx); err != nil || n != 0 {
			t.Fatalf("second sweep closed %d, %v; want none: it is closed", n, err)
		}
		for id, closed := range map[string]bool{"ends-soon": true, "runs-on": false} {
			d, err := s.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocPool, ID: id})
			if err != nil {
				t.Fatal(err)
			}
			var p stockd.Pool
			if err := json.Unmarshal(d.Body, &p); err != nil {
				t.Fatal(err)
			}
			if (p.ClosedAt != nil) != closed {
				t.Fatalf("%s closed_at %v, want closed %v", id, p.ClosedAt, closed)
			}
		}
		// 7 unsold went back to normal; the 3 held stay with their hold,
		// and the running campaign keeps its 10.
		if c := h.Counters("a", "default"); c.OnHand != 100-20+7 {
			t.Fatalf("normal counters %+v, want on_hand 87 after the close", c)
		}
		h.Verify()
	})
}
