package sqlite

import (
	"fmt"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
)

// BenchmarkBatchReserve measures one full batch of reservations on one hot
// SKU through the engine: read, decide, Write, commit.
func BenchmarkBatchReserve(b *testing.B) {
	for _, size := range []int{1, 64, stockd.BatchSizeMax} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			s := newTestStore(b)
			e := engine.New(engine.Config{Store: s})
			b.Cleanup(e.Close)
			setup := []stockd.Command{skuCreate("hot"), receive("hot", stockd.QuantityMax)}
			for i := range setup {
				if verr := setup[i].Normalize(); verr != nil {
					b.Fatal(verr)
				}
			}
			if _, err := e.Apply(setup); err != nil {
				b.Fatal(err)
			}
			cmds := make([]stockd.Command, size)
			b.ResetTimer()
			for n := range b.N {
				for i := range cmds {
					key := fmt.Sprintf("r-%d-%d", n, i)
					cmds[i] = stockd.Command{IdempotencyKey: key, RequestHash: key,
						Op: &stockd.Reserve{Lines: []stockd.LineRequest{{SKU: "hot", Quantity: 1}}}}
					if verr := cmds[i].Normalize(); verr != nil {
						b.Fatal(verr)
					}
				}
				if _, err := e.Apply(cmds); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*size)/b.Elapsed().Seconds(), "reservations/s")
		})
	}
}
