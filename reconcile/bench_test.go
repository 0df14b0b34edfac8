package reconcile_test

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/reconcile"
)

// BenchmarkMinutePass times the minute pass over a backlog of 1000 new
// ledger entries spread over 200 positions, written through the engine
// between iterations (untimed). Run it with
//
//	go test -run '^$' -bench MinutePass -benchtime 20x ./reconcile/
func BenchmarkMinutePass(b *testing.B) {
	const skus, entriesPerPass = 200, 1000
	for _, backend := range testdb.Backends() {
		b.Run(backend.Name, func(b *testing.B) {
			h := flowtest.NewHarness(b, backend.New(b))
			for i := range skus {
				h.SKU(fmt.Sprintf("S%03d", i))
			}
			r := reconcile.New(reconcile.Config{Store: h.Store, Now: h.Clock.Now, BatchPause: time.Microsecond})
			if _, err := r.Minute(ctx); err != nil {
				b.Fatal(err)
			}
			var positions int
			for b.Loop() {
				b.StopTimer()
				var wg sync.WaitGroup
				for i := range entriesPerPass {
					wg.Go(func() {
						h.Receive(fmt.Sprintf("S%03d", i%skus), "default", 1)
					})
				}
				wg.Wait()
				b.StartTimer()
				res, err := r.Minute(ctx)
				if err != nil || !res.Clean() {
					b.Fatalf("pass: %+v, %v", res.Findings, err)
				}
				for _, run := range res.Runs {
					positions += run.PositionsChecked
				}
			}
			b.ReportMetric(float64(entriesPerPass*b.N)/b.Elapsed().Seconds(), "entries/s")
			b.ReportMetric(float64(positions)/float64(b.N), "positions/pass")
		})
	}
}
