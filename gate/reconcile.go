package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
)

// Report compares one campaign's gate with the database.
type Report struct {
	Pool string    `json:"pool"`
	At   time.Time `json:"at"`
	// Drifted is set when a position's Drift is not zero: reported, never
	// fixed (an operator looks, then preheats or adjusts).
	Drifted   bool             `json:"drifted"`
	Positions []PositionReport `json:"positions"`
}

// PositionReport is one position's comparison. Drift is Database minus
// Redis minus Pending: what the database holds for sale that the gate does
// not account for. Positive: units the gate will not sell (released or
// expired reservations, stock allocated since the preheat). Negative: the
// gate may sell what the database will refuse.
type PositionReport struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	// Redis is the gate's remaining stock; Missing when it has no key.
	Redis   int64 `json:"redis"`
	Missing bool  `json:"missing,omitempty"`
	// Pending is what the gate won and the persister has not persisted.
	Pending  int64 `json:"pending"`
	Database int64 `json:"database"`
	Drift    int64 `json:"drift"`
	Closed   bool  `json:"closed,omitempty"`
	// Moving is set when Redis changed while the database was read: the
	// drift of a position under sale is not judged in that pass.
	Moving bool `json:"moving,omitempty"`
}

type redisView struct {
	stock   map[string]*int64
	pending map[string]int64
	closed  map[string]bool
	// applying is what persisters are applying now, per position: the
	// database may already hold it while Redis still counts it pending.
	applying map[string]int64
}

// Reconcile compares every position of pool: Redis, read atomically before
// and after the database, against the database's available.
func (g *Gate) Reconcile(ctx context.Context, pool string) (Report, error) {
	avail, err := g.databaseAvailable(ctx, pool)
	if err != nil {
		return Report{}, err
	}
	before, err := g.view(ctx, pool, avail)
	if err != nil {
		return Report{}, err
	}
	if avail, err = g.databaseAvailable(ctx, pool); err != nil {
		return Report{}, err
	}
	after, err := g.view(ctx, pool, avail)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Pool: pool, At: g.cfg.Now().UTC(), Positions: make([]PositionReport, 0, len(avail))}
	for _, a := range avail {
		f := field(a.SKU, a.Location)
		pr := PositionReport{SKU: a.SKU, Location: a.Location, Database: a.Quantity, Pending: after.pending[f], Closed: after.closed[f]}
		if s := after.stock[f]; s != nil {
			pr.Redis = *s
		} else {
			pr.Missing = true
		}
		pr.Moving = before.pending[f] != after.pending[f] || !sameStock(before.stock[f], after.stock[f])
		if !pr.Moving && !pr.Missing {
			pr.Drift = pr.Database - pr.Redis - pr.Pending
			// Applied in the database, not yet acknowledged in Redis.
			if pr.Drift < 0 && -pr.Drift <= max(before.applying[f], after.applying[f]) {
				pr.Drift, pr.Moving = 0, true
			}
			rep.Drifted = rep.Drifted || pr.Drift != 0
		}
		rep.Positions = append(rep.Positions, pr)
	}
	if rep.Drifted {
		g.log.Warn("gate: reconciliation found drift", "pool", pool, "positions", rep.Positions)
	}
	return rep, nil
}

func sameStock(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// view reads the stock, pending and closed state of positions in one
// MULTI, so that no script runs between its reads.
func (g *Gate) view(ctx context.Context, pool string, positions []stockd.GatePosition) (redisView, error) {
	v := redisView{stock: map[string]*int64{}, pending: map[string]int64{}, closed: map[string]bool{}, applying: map[string]int64{}}
	gets := make([]*redis.StringCmd, len(positions))
	var pending, closed, applying *redis.MapStringStringCmd
	_, err := g.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for i, pos := range positions {
			gets[i] = p.Get(ctx, g.stockKey(pool, field(pos.SKU, pos.Location)))
		}
		pending = p.HGetAll(ctx, g.key(pool, "inflight"))
		closed = p.HGetAll(ctx, g.key(pool, "closed"))
		applying = p.HGetAll(ctx, g.key(pool, "applying"))
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return v, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	for i, pos := range positions {
		s, err := gets[i].Int64()
		if errors.Is(err, redis.Nil) {
			continue
		}
		if err != nil {
			return v, err
		}
		v.stock[field(pos.SKU, pos.Location)] = &s
	}
	for f, q := range pending.Val() {
		n, err := strconv.ParseInt(q, 10, 64)
		if err != nil {
			return v, err
		}
		v.pending[f] = n
	}
	for f := range closed.Val() {
		v.closed[f] = true
	}
	for _, lines := range applying.Val() {
		var ls []entryLine
		if err := json.Unmarshal([]byte(lines), &ls); err != nil {
			return v, fmt.Errorf("gate: applying entry: %w", err)
		}
		for _, l := range ls {
			v.applying[field(l.SKU, l.Location)] += l.Quantity
		}
	}
	return v, nil
}

// Reconciler reconciles every gated pool each interval until ctx ends,
// logging drift; each pass is bounded by the interval.
func (g *Gate) Reconciler(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pass, cancel := context.WithTimeout(ctx, interval)
		pools, err := g.GatedPools(pass)
		if err != nil {
			g.log.Warn("gate: reconcile: list gated pools", "err", err)
		}
		for _, p := range pools {
			if _, err := g.Reconcile(pass, p); err != nil {
				g.log.Warn("gate: reconcile", "pool", p, "err", err)
			}
		}
		cancel()
	}
}
