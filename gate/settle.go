package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Preheat records the pool's available quantity per position in the
// database (stockd.GatePreheat) and writes it to Redis, reopening every
// closed position. Result.Err holds the domain's refusal. A replayed
// preheat (same idempotency key) writes nothing to Redis again.
func (g *Gate) Preheat(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	op, ok := cmd.Op.(*stockd.GatePreheat)
	if !ok {
		panic("gate: Preheat of a command that is no preheat")
	}
	var result stockd.Result
	var submitErr error
	err := g.settle(ctx, op.Pool, func(ctx context.Context) (*stockd.GateState, error) {
		res, err := g.cfg.Engine.Submit(ctx, cmd)
		result, submitErr = res, err
		if err != nil || res.Err != nil || res.Replayed {
			return nil, err
		}
		var st stockd.GateState
		if err := json.Unmarshal(res.Object, &st); err != nil {
			return nil, fmt.Errorf("gate: preheat answer: %w", err)
		}
		return &st, nil
	})
	if errors.Is(err, errNotDrained) {
		return refusal(stockd.CodeGateUnavailable, "the persister did not persist the wins in flight within %s: retry later", g.cfg.DrainTimeout), nil
	}
	if errors.Is(err, errShut) {
		return refusal(stockd.CodeCampaignNotActive, "pool %q is closed", op.Pool), nil
	}
	if submitErr != nil {
		return stockd.Result{}, submitErr
	}
	if err != nil {
		if ctx.Err() != nil {
			return stockd.Result{}, ctx.Err()
		}
		return g.unavailable(err), nil
	}
	g.log.Info("gate: preheated", "pool", op.Pool, "replayed", result.Replayed)
	return result, nil
}

// Refill rebuilds a campaign's Redis state from the database after a key
// was found missing, once across processes: under a Redis lock, and under a
// mutex per pool in this one. A caller that finds another's refill under
// way waits for it to end.
func (g *Gate) Refill(ctx context.Context, pool string) error {
	mu := g.refillMutex(pool)
	mu.Lock()
	defer mu.Unlock()
	lock := g.key(pool, "lock")
	token := g.cfg.NewID()
	ok, err := g.rdb.SetNX(ctx, lock, token, g.cfg.DrainTimeout+5*time.Second).Result()
	if err != nil {
		return err
	}
	if !ok {
		return g.waitGone(ctx, lock)
	}
	defer func() {
		if err := unlockScript.Run(context.WithoutCancel(ctx), g.rdb, []string{lock}, token).Err(); err != nil {
			g.log.Warn("gate: unlock refill", "pool", pool, "err", err)
		}
	}()
	err = g.settle(ctx, pool, func(ctx context.Context) (*stockd.GateState, error) { return g.databaseState(ctx, pool) })
	if err == nil {
		g.log.Warn("gate: refilled from the database after a missing key", "pool", pool)
	}
	return err
}

func (g *Gate) refillMutex(pool string) *sync.Mutex {
	g.refillsMu.Lock()
	defer g.refillsMu.Unlock()
	mu, ok := g.refills[pool]
	if !ok {
		if len(g.refills) >= poolCacheEntriesMax {
			clear(g.refills)
		}
		mu = &sync.Mutex{}
		g.refills[pool] = mu
	}
	return mu
}

var (
	errNotDrained = errors.New("gate: wins in flight not persisted in time")
	errShut       = errors.New("gate: the campaign is closed")
)

// settle pauses the campaign's gate, waits until every win in flight is
// persisted (so that the database's available is exact), takes the state
// to write from state, writes it and reopens the gate. A nil state writes
// nothing. The pause has a deadline of its own, so that a process dying
// here never leaves the gate paused.
func (g *Gate) settle(ctx context.Context, pool string, state func(context.Context) (*stockd.GateState, error)) error {
	paused := g.key(pool, "paused")
	if v, err := g.rdb.Get(ctx, paused).Result(); err == nil && v == "closed" {
		return errShut
	}
	if err := g.rdb.Set(ctx, paused, "settling", g.cfg.DrainTimeout+5*time.Second).Err(); err != nil {
		return err
	}
	defer func() {
		if err := g.rdb.Del(context.WithoutCancel(ctx), paused).Err(); err != nil {
			g.log.Warn("gate: unpause", "pool", pool, "err", err)
		}
	}()
	if err := g.drain(ctx, pool); err != nil {
		return err
	}
	st, err := state(ctx)
	if err != nil || st == nil {
		return err
	}
	return g.write(ctx, pool, st)
}

// drain waits, bounded, until the pool has no win in flight.
func (g *Gate) drain(ctx context.Context, pool string) error {
	deadline := time.Now().Add(g.cfg.DrainTimeout)
	for {
		n, err := g.inflight(ctx, pool)
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return errNotDrained
		}
		if err := sleep(ctx, pollInterval); err != nil {
			return err
		}
	}
}

func (g *Gate) inflight(ctx context.Context, pool string) (int64, error) {
	vals, err := g.rdb.HVals(ctx, g.key(pool, "inflight")).Result()
	if err != nil {
		return 0, err
	}
	var n int64
	for _, v := range vals {
		q, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("gate: inflight %q: %w", v, err)
		}
		n += q
	}
	return n, nil
}

// waitGone waits, bounded, until key is gone (another's refill ended).
func (g *Gate) waitGone(ctx context.Context, key string) error {
	deadline := time.Now().Add(g.cfg.DrainTimeout + 5*time.Second)
	for time.Now().Before(deadline) {
		n, err := g.rdb.Exists(ctx, key).Result()
		if err != nil || n == 0 {
			return err
		}
		if err := sleep(ctx, pollInterval); err != nil {
			return err
		}
	}
	return errNotDrained
}

// write puts st into Redis in one transaction: stock per position, the
// closed positions, the campaign limit, the consumer group.
func (g *Gate) write(ctx context.Context, pool string, st *stockd.GateState) error {
	stream := g.streamKey(pool)
	if err := g.rdb.XGroupCreateMkStream(ctx, stream, group, "0").Err(); err != nil && !isBusyGroup(err) {
		return fmt.Errorf("gate: consumer group: %w", err)
	}
	_, err := g.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for _, pos := range st.Positions {
			p.Set(ctx, g.stockKey(pool, field(pos.SKU, pos.Location)), max(pos.Quantity, 0), 0)
		}
		p.Del(ctx, g.key(pool, "closed"))
		for _, c := range st.Closed {
			p.HSet(ctx, g.key(pool, "closed"), field(c.SKU, c.Location), "gate_oversell")
		}
		if st.Limit > 0 {
			p.Set(ctx, g.key(pool, "limit"), st.Limit, 0)
		} else {
			p.Del(ctx, g.key(pool, "limit"))
		}
		return nil
	})
	return err
}

func isBusyGroup(err error) bool {
	return err != nil && len(err.Error()) >= 9 && err.Error()[:9] == "BUSYGROUP"
}

// databaseState is what a refill writes: each position's available now
// (every win is persisted: settle drained them), the closed positions and
// limit the last preheat and exceptions recorded.
func (g *Gate) databaseState(ctx context.Context, pool string) (*stockd.GateState, error) {
	var st stockd.GateState
	if _, err := document(ctx, g.cfg.Store, stockd.DocGate, pool, &st); err != nil {
		return nil, err
	}
	avail, err := g.databaseAvailable(ctx, pool)
	if err != nil {
		return nil, err
	}
	st.Positions = st.Positions[:0]
	for _, a := range avail {
		st.Positions = append(st.Positions, a)
	}
	return &st, nil
}

// databaseAvailable reads the available quantity of every position the
// pool holds stock at.
func (g *Gate) databaseAvailable(ctx context.Context, pool string) ([]stockd.GatePosition, error) {
	var ps stockd.PoolStock
	if _, err := document(ctx, g.cfg.Store, stockd.DocPoolStock, pool, &ps); err != nil {
		return nil, err
	}
	bySKU := map[string][]stockd.Position{}
	out := make([]stockd.GatePosition, 0, len(ps.Positions))
	for _, item := range ps.Positions {
		positions, ok := bySKU[item.SKU]
		if !ok {
			var err error
			if positions, err = g.cfg.Store.PositionListBySKU(ctx, item.SKU); err != nil {
				return nil, err
			}
			bySKU[item.SKU] = positions
		}
		gp := stockd.GatePosition{SKU: item.SKU, Location: item.Location}
		for _, p := range positions {
			if p.Location == item.Location && p.Pool == pool {
				gp.Quantity = p.Available()
			}
		}
		out = append(out, gp)
	}
	return out, nil
}

// document reads and decodes one document, reporting whether it exists.
func document(ctx context.Context, s store.Store, kind, id string, v any) (bool, error) {
	d, err := s.DocumentGet(ctx, stockd.DocKey{Kind: kind, ID: id})
	if errors.Is(err, stockd.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, decode(d.Body, v)
}

func decode(body []byte, v any) error {
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("gate: document: %w", err)
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
