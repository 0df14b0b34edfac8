package engine

import (
	"slices"
	"sync"

	"github.com/stockd/stockd"
)

// runRejects answers requests for lines known to be sold out without a
// transaction. One read still happens, batched: a request whose key already
// has a stored answer goes to the batch queue and is replayed, because a
// retry of a reservation that succeeded must never come back refused.
func (e *Engine) runRejects() {
	defer e.rejectsWG.Done()
	batch := make([]*request, 0, e.cfg.BatchSizeMax)
	for {
		var ok bool
		if batch, ok = e.next(e.rejects, e.stop, batch); !ok {
			return
		}
		e.contained(batch, e.reject)
	}
}

func (e *Engine) reject(batch []*request) {
	keys := make([]string, 0, len(batch))
	for _, r := range batch {
		keys = append(keys, r.cmd.LookupKeys()...)
	}
	ctx, cancel := e.batchContext()
	defer cancel()
	records, err := e.cfg.Store.IdempotencyGet(ctx, keys)
	stored := make(map[string]bool, len(records))
	for _, rec := range records {
		stored[rec.Key] = true
	}
	for _, r := range batch {
		if err != nil || slices.ContainsFunc(r.cmd.LookupKeys(), func(k string) bool { return stored[k] }) {
			// Unsure or seen before: let a transaction decide.
			r.short = nil
			if !e.enqueue(r) {
				r.answer <- answer{result: stockd.Result{Err: stockd.Errorf(stockd.CodeOverloaded, "too many requests queued, retry later")}}
			}
			continue
		}
		e.cfg.Metrics.soldOutAnswered()
		r.answer <- answer{result: stockd.Result{Unstored: true, Err: &stockd.Error{
			Code: stockd.CodeInsufficientStock, Message: "sold out", Lines: r.short,
		}}}
	}
}

// perSKU counts queued reservations per SKU.
type perSKU struct {
	mu     sync.Mutex
	max    int
	queued map[string]int
}

func newPerSKU(max int) *perSKU { return &perSKU{max: max, queued: map[string]int{}} }

// admit counts cmd's SKUs in, or refuses it if one of them is at the cap.
func (p *perSKU) admit(cmd stockd.Command) bool {
	r, ok := cmd.Op.(*stockd.Reserve)
	if !ok {
		return true
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range r.Lines {
		if p.queued[l.SKU] >= p.max {
			return false
		}
	}
	for _, l := range r.Lines {
		p.queued[l.SKU]++
	}
	return true
}

// release counts cmd's SKUs out once its batch formed.
func (p *perSKU) release(cmd stockd.Command) {
	r, ok := cmd.Op.(*stockd.Reserve)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range r.Lines {
		if p.queued[l.SKU]--; p.queued[l.SKU] <= 0 {
			delete(p.queued, l.SKU)
		}
	}
}
