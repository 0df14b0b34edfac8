//go:build unix

package stockd

import (
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// BenchmarkApplyOrders decides one batch of the bench's orders scenario:
// about 300 reservations of 1 to 5 SKUs, one unit each, against a batch
// holding about 1,000 positions (what an engine batch of that size locks).
// Each iteration decides a fresh state; building it is not timed. Beside
// ns/op it reports cpu-ns/op, the process's CPU time (GC workers included)
// across Apply: on a shared machine, wall time measures the neighbours.
func BenchmarkApplyOrders(b *testing.B) {
	for _, bb := range []struct {
		name      string
		locations int
		skus      int
		strategy  string
	}{
		{"one_location", 1, 1000, StrategyPriority},
		{"four_locations", 4, 250, StrategyPriority},
		{"four_locations_single", 4, 250, StrategySingleLocation},
		{"four_locations_split", 4, 250, StrategySplit},
	} {
		b.Run(bb.name, func(b *testing.B) {
			const ordersPerBatch, linesPerOrderMax = 300, 5
			r := rand.New(rand.NewPCG(1, 2))
			cmds := make([]Command, ordersPerBatch)
			for i := range cmds {
				n := 1 + r.IntN(linesPerOrderMax)
				lines := make([]LineRequest, 0, n)
				for len(lines) < n {
					lines = append(lines, LineRequest{SKU: fmt.Sprintf("sku-%04d", r.IntN(bb.skus)), Quantity: 1})
				}
				key := fmt.Sprintf("order-%d", i)
				cmds[i] = Command{IdempotencyKey: key, RequestHash: key, Actor: "bench", Op: &Reserve{Lines: lines, Strategy: bb.strategy}}
				if err := cmds[i].Normalize(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				s := ordersState(bb.locations, bb.skus)
				b.StartTimer()
				start := processCPUTime(b)
				for _, res := range s.Apply(cmds) {
					if res.Err != nil {
						b.Fatal(res.Err)
					}
				}
				cpu += processCPUTime(b) - start
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		})
	}
}

// ordersState holds skus SKUs at each of locations locations (priorities
// 1 upwards). One location holds 10 units of each SKU, enough for the
// batch; with more, each position holds 3, so the first runs out now and
// then and placement walks further.
func ordersState(locations, skus int) *BatchState {
	n := 0
	s := NewBatchState(t0, func() string { n++; return fmt.Sprintf("r%d", n) })
	for l := range locations {
		id := fmt.Sprintf("loc-%d", l)
		s.Locations[id] = Location{ID: id, Priority: l + 1}
	}
	stock := int64(3)
	if locations == 1 {
		stock = 10
	}
	for i := range skus {
		id := fmt.Sprintf("sku-%04d", i)
		s.SKUs[id] = SKU{ID: id}
		for l := range locations {
			s.Positions[PositionKey{SKU: id, Location: fmt.Sprintf("loc-%d", l), Pool: PoolDefault}] = &Counters{OnHand: stock}
		}
	}
	return s
}

// processCPUTime is the user and system time the process used so far.
func processCPUTime(b *testing.B) time.Duration {
	var u syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
		b.Fatal(err)
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
