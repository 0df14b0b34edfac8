package flowtest

// The race helpers run commands on engine replicas at once: separate
// processes of the service, whose batches meet only in the database.

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
)

// replicas returns n engines on the harness's store, as n processes of the
// service: their batches are separate transactions that race in the
// database, with nothing shared in memory.
func (h *Harness) replicas(n int) []*engine.Engine {
	engines := make([]*engine.Engine, n)
	for i := range engines {
		engines[i] = engine.New(engine.Config{Store: h.Store, Now: h.Clock.Now})
		h.T.Cleanup(engines[i].Close)
	}
	return engines
}

// race submits reserve(i) on replica i, all at once, and returns the
// results in order.
func (h *Harness) race(n int, reserve func(i int) *stockd.Reserve) []stockd.Result {
	h.T.Helper()
	return h.raceCommands(n, func(i int) stockd.Command {
		return stockd.Command{Op: reserve(i)}
	})
}

// raceCommands submits cmd(i) on its own engine replica i (as separate
// service processes would), all at once, each under a fresh idempotency
// key, and returns the results in order. An engine error fails the test.
func (h *Harness) raceCommands(n int, cmd func(i int) stockd.Command) []stockd.Result {
	h.T.Helper()
	engines := h.replicas(n)
	h.keys++ // a fresh key space per race: keys of an earlier race would replay
	round := h.keys
	results := make([]stockd.Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cmd(i)
			c.IdempotencyKey = fmt.Sprintf("race-%d-%d", round, i)
			c.RequestHash = c.IdempotencyKey
			results[i], errs[i] = engines[i].Submit(context.Background(), c)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			h.T.Fatalf("submit %d: %v", i, err)
		}
	}
	return results
}

// countPassed counts the successes and fails t on a failure with a code
// other than those given.
func countPassed(t *testing.T, results []stockd.Result, codes ...string) int {
	t.Helper()
	passed := 0
	for i, res := range results {
		switch {
		case res.Err == nil:
			passed++
		case !slices.Contains(codes, res.Err.Code):
			t.Fatalf("command %d: %v", i, res.Err)
		}
	}
	return passed
}
