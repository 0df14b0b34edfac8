package engine_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// TestDerivedEventsOncePerCrossing races 120 reservations of one unit for
// 40 units with an alert line of 10, in every engine mode on both
// databases: whatever the batching, the position and the pool each cross
// the line once and sell out once, in the transaction that crossed.
func TestDerivedEventsOncePerCrossing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		for _, m := range modes {
			t.Run(m.name, func(t *testing.T) {
				s := b.New(t)
				e := newEngine(t, s, m.cfg)
				if _, err := e.Submit(ctx, stockd.Command{IdempotencyKey: "sku", RequestHash: "sku", Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: "a"}}}); err != nil {
					t.Fatal(err)
				}
				if wrote, err := s.SKUAlertLineSet(ctx, "a", 10); err != nil || !wrote {
					t.Fatalf("SKUAlertLineSet = %v, %v; want written", wrote, err)
				}
				if res, err := e.Submit(ctx, stockd.Command{IdempotencyKey: "in", RequestHash: "in",
					Op: &stockd.Receive{Position: stockd.PositionKey{SKU: "a"}, Quantity: 40}}); err != nil || res.Err != nil {
					t.Fatalf("receive: %v %v", err, res.Err)
				}
				var wg sync.WaitGroup
				var mu sync.Mutex
				won := 0
				for i := range 120 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						key := fmt.Sprintf("r%d", i)
						res, err := e.Submit(ctx, stockd.Command{IdempotencyKey: key, RequestHash: key,
							Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "a", Quantity: 1}}}})
						if err != nil {
							t.Errorf("reserve %d: %v", i, err)
							return
						}
						if res.Err == nil {
							mu.Lock()
							won++
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
				if won != 40 {
					t.Fatalf("%d reservations won, want 40", won)
				}
				counts := map[string]int{}
				var lowAfter, soldAfter int64 = -1, -1
				for after := int64(0); ; {
					page, err := s.LedgerList(ctx, store.LedgerListParams{SKU: "a", After: after, Limit: stockd.PageSizeMax})
					if err != nil {
						t.Fatal(err)
					}
					for _, le := range page {
						after = le.Seq
						if !stockd.EventOnly(le.BusinessType) {
							continue
						}
						counts[le.BusinessType]++
						if le.Delta != (stockd.Counters{}) {
							t.Fatalf("event %+v has a delta", le)
						}
						switch le.BusinessType {
						case stockd.EventStockLow:
							lowAfter = le.After.Available()
						case stockd.EventStockSoldOut:
							soldAfter = le.After.Available()
						}
					}
					if len(page) < stockd.PageSizeMax {
						break
					}
				}
				want := map[string]int{
					stockd.EventStockBackInStock: 1, stockd.EventPoolBackInStock: 1, // the receipt
					stockd.EventStockLow: 1, stockd.EventPoolLow: 1,
					stockd.EventStockSoldOut: 1, stockd.EventPoolSoldOut: 1,
				}
				if fmt.Sprint(counts) != fmt.Sprint(want) {
					t.Fatalf("events %v, want %v", counts, want)
				}
				// Its counters are the position's as the event was decided.
				if lowAfter != 10 || soldAfter != 0 {
					t.Fatalf("low at available %d, sold out at %d; want 10 and 0", lowAfter, soldAfter)
				}
			})
		}
	})
}
