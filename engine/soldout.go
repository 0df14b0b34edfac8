package engine

import (
	"sync"
	"time"

	"github.com/stockd/stockd"
)

// soldOutLapse bounds how long sold-out knowledge is trusted without a
// transaction. Stock added by this engine clears it at once; stock added by
// another replica is seen at the latest one lapse later.
const soldOutLapse = time.Second

// soldOutEntriesMax bounds the memory the knowledge takes.
const soldOutEntriesMax = 100_000

// soldOut remembers positions, and SKU pools anywhere, that had nothing
// available when a batch committed, so that a flash sale's losers are
// answered without a transaction.
type soldOut struct {
	mu    sync.Mutex
	since map[stockd.PositionKey]time.Time // Location "" means every location
}

func newSoldOut() *soldOut {
	return &soldOut{since: map[stockd.PositionKey]time.Time{}}
}

func lineKey(l stockd.LineRequest) stockd.PositionKey {
	return stockd.PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
}

// check returns the lines known to be sold out, or nil.
func (s *soldOut) check(lines []stockd.LineRequest, now time.Time) []stockd.Shortfall {
	s.mu.Lock()
	defer s.mu.Unlock()
	var short []stockd.Shortfall
	for _, l := range lines {
		since, ok := s.since[lineKey(l)]
		if ok && now.Sub(since) < soldOutLapse {
			short = append(short, stockd.Shortfall{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Requested: l.Quantity})
		}
	}
	return short
}

// learn records what a committed batch left: positions of the batch's SKUs
// with stock clear their marks, and every line the batch asked for that now
// has nothing available anywhere it could go is marked.
func (s *soldOut) learn(cmds []stockd.Command, positions map[stockd.PositionKey]*stockd.Counters, elsewhere func(stockd.LineRequest) bool, now time.Time) {
	// Available anywhere in a SKU's pool, keyed with an empty location.
	anywhere := make(map[stockd.PositionKey]bool, len(positions))
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, c := range positions {
		if c.Available() > 0 {
			pool := stockd.PositionKey{SKU: k.SKU, Pool: k.Pool}
			anywhere[pool] = true
			delete(s.since, k)
			delete(s.since, pool)
		}
	}
	for i := range cmds {
		r, ok := cmds[i].Op.(*stockd.Reserve)
		if !ok {
			continue
		}
		for _, l := range r.Lines {
			// A bundle's stock is its components'; a pool that falls back
			// may be served from normal: an empty own key says nothing.
			if elsewhere(l) {
				continue
			}
			k := lineKey(l)
			available := anywhere[k]
			if l.Location != "" {
				c, ok := positions[k]
				available = ok && c.Available() > 0
			}
			if !available {
				s.since[k] = now
			}
		}
	}
	if len(s.since) > soldOutEntriesMax {
		s.prune(now)
	}
}

// prune drops lapsed marks, and everything if that is not enough (forgetting
// only costs a transaction). Lock must be held.
func (s *soldOut) prune(now time.Time) {
	for k, t := range s.since {
		if now.Sub(t) >= soldOutLapse {
			delete(s.since, k)
		}
	}
	if len(s.since) > soldOutEntriesMax {
		clear(s.since)
	}
}
