package storetest

import (
	"fmt"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store"
)

// BenchmarkBatchReserve measures one full batch of reservations on one hot
// SKU through the engine on a backend: lock, read, decide, write, commit.
// Both backends run it, so their figures compare.
func BenchmarkBatchReserve(b *testing.B, newStore func(testing.TB) store.Store) {
	for _, size := range []int{1, 64, stockd.BatchSizeMax} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			e := engine.New(engine.Config{Store: newStore(b)})
			b.Cleanup(e.Close)
			setup := []stockd.Command{
				{IdempotencyKey: "sku-hot", RequestHash: "sku-hot", Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: "hot", Name: "hot"}}},
				{IdempotencyKey: "receive-hot", RequestHash: "receive-hot", Op: &stockd.Receive{Position: stockd.PositionKey{SKU: "hot"}, Quantity: stockd.QuantityMax}},
			}
			applyNormalized(b, e, setup)
			cmds := make([]stockd.Command, size)
			b.ResetTimer()
			for n := range b.N {
				for i := range cmds {
					key := fmt.Sprintf("r-%d-%d", n, i)
					cmds[i] = stockd.Command{IdempotencyKey: key, RequestHash: key, Op: &stockd.Reserve{Lines: []stockd.LineRequest{line("hot", 1)}}}
				}
				applyNormalized(b, e, cmds)
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "reservations/s")
		})
	}
}

func applyNormalized(b *testing.B, e *engine.Engine, cmds []stockd.Command) {
	b.Helper()
	for i := range cmds {
		if verr := cmds[i].Normalize(); verr != nil {
			b.Fatal(verr)
		}
	}
	if _, err := e.Apply(cmds); err != nil {
		b.Fatal(err)
	}
}
