package gate

import (
	"context"
	"errors"
	"strconv"

	"github.com/redis/go-redis/v9"
)

// States of a position as the gate sells it (PositionView.State).
const (
	ViewOpen           = "open"            // the gate sells what remains
	ViewPaused         = "paused"          // a preheat or refill settles the campaign: retry shortly
	ViewShut           = "shut"            // the campaign is closed: nothing more is sold
	ViewPositionClosed = "position_closed" // closed after a win the database refused, until a preheat
	ViewNotPreheated   = "not_preheated"   // no count in Redis: the first reservation refills it from the database
	ViewUnavailable    = "unavailable"     // Redis did not answer in time: the database's numbers stand alone
)

// ViewSource labels numbers read from the gate's Redis, not the database.
const ViewSource = "redis"

// PositionView is one gated position as the gate sells it now: read from
// Redis, ahead of the database by the wins not yet persisted.
type PositionView struct {
	Pool     string `json:"pool"`
	Location string `json:"location"`
	Source   string `json:"source"`
	State    string `json:"state"`
	// Remaining is what the gate may still sell; InFlight what it won and
	// the persister has not yet written. Absent when not preheated or
	// unavailable.
	Remaining *int64 `json:"remaining,omitempty"`
	InFlight  *int64 `json:"in_flight,omitempty"`
}

// View reads how the gate stands for sku at locations of pool, in one
// MULTI. A Redis failure (ctx's deadline included) answers every position
// unavailable, never an error: a reader of stock still gets the
// database's numbers.
func (g *Gate) View(ctx context.Context, pool, sku string, locations []string) []PositionView {
	out := make([]PositionView, len(locations))
	for i, loc := range locations {
		out[i] = PositionView{Pool: pool, Location: loc, Source: ViewSource, State: ViewUnavailable}
	}
	if len(locations) == 0 {
		return out
	}
	stocks := make([]*redis.StringCmd, len(locations))
	inflight := make([]*redis.StringCmd, len(locations))
	closed := make([]*redis.BoolCmd, len(locations))
	var shut, paused *redis.IntCmd
	// The read runs apart and the answer waits only until ctx ends: a
	// client without ContextTimeoutEnabled would block past the deadline
	// on a Redis that accepts and never answers.
	read := make(chan error, 1)
	go func() {
		_, err := g.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			shut = p.Exists(ctx, g.key(pool, "shut"))
			paused = p.Exists(ctx, g.key(pool, "paused"))
			for i, loc := range locations {
				f := field(sku, loc)
				stocks[i] = p.Get(ctx, g.stockKey(pool, f))
				inflight[i] = p.HGet(ctx, g.key(pool, "inflight"), f)
				closed[i] = p.HExists(ctx, g.key(pool, "closed"), f)
			}
			return nil
		})
		read <- err
	}()
	var err error
	select {
	case err = <-read:
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil && !errors.Is(err, redis.Nil) {
		g.log.Warn("gate: view", "pool", pool, "sku", sku, "err", err)
		return out
	}
	for i := range locations {
		v := &out[i]
		remaining, err := stocks[i].Int64()
		if errors.Is(err, redis.Nil) {
			v.State = ViewNotPreheated
			if shut.Val() > 0 {
				v.State = ViewShut
			}
			continue
		}
		if err != nil {
			continue
		}
		var flight int64
		if s, err := inflight[i].Result(); err == nil {
			if flight, err = strconv.ParseInt(s, 10, 64); err != nil {
				continue
			}
		}
		v.Remaining, v.InFlight = &remaining, &flight
		switch {
		case shut.Val() > 0:
			v.State = ViewShut
		case closed[i].Val():
			v.State = ViewPositionClosed
		case paused.Val() > 0:
			v.State = ViewPaused
		default:
			v.State = ViewOpen
		}
	}
	return out
}
