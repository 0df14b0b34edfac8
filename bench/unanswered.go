package bench

import (
	"context"
	"slices"
	"sync"
	"time"
)

// A reservation whose call failed (its deadline passed, the connection
// dropped) may still have been applied: the server commits a batch while
// any of its callers waits. The bench then knows nothing of it, and a
// check of the books against the answers would call the difference a
// bug. As a client must, the bench asks again under the same key once the
// row is over and the database answers promptly again: the replay tells
// what happened.

// unanswered holds the failed reservations of a drive, across its runs.
type unanswered struct {
	mu       sync.Mutex
	requests []Request
}

func (u *unanswered) add(req *Request) {
	kept := *req
	kept.Lines = slices.Clone(req.Lines) // the worker reuses its slice
	u.mu.Lock()
	u.requests = append(u.requests, kept)
	u.mu.Unlock()
}

// resolveUnanswered re-sends every failed reservation under its key with
// dr.workers callers and books the stock of those that won in the bench's
// account, as their first answer would have. It returns how many won,
// how many are still unknown (the retry failed too), and the latest
// deadline of a won lifecycle reservation, which is left to expire.
func (dr *drive) resolveUnanswered(ctx context.Context) (won, unknown int64, deadline time.Time) {
	dr.failed.mu.Lock()
	requests := dr.failed.requests
	dr.failed.requests = nil
	dr.failed.mu.Unlock()
	var mu sync.Mutex
	var wg sync.WaitGroup
	next := make(chan *Request)
	for range min(dr.workers, len(requests)) {
		wg.Go(func() {
			for req := range next {
				out, err := dr.target.Reserve(ctx, req)
				mu.Lock()
				switch {
				case err != nil:
					unknown++
				case out.Status != Won:
				case dr.w.lifecycle:
					won++
					// Never confirmed or released: it expires, holding nothing.
					if d := time.Now().Add(req.TTL); d.After(deadline) {
						deadline = d
					}
				default:
					won++
					for _, l := range req.Lines {
						dr.held[l.SKU].reserved.Add(l.Quantity)
					}
				}
				mu.Unlock()
			}
		})
	}
	for i := range requests {
		next <- &requests[i]
	}
	close(next)
	wg.Wait()
	return won, unknown, deadline
}
