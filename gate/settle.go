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
// database (stockd.GatePreheat) and writes to Redis what each position's
// last ledger entry holds, with that entry's seq as the position's mark,
// reopening every closed position. Result.Err holds the domain's refusal.
// A replayed preheat (same idempotency key) writes nothing to Redis again.
func (g *Gate) Preheat(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	op, ok := cmd.Op.(*stockd.GatePreheat)
	if !ok {
		panic("gate: Preheat of a command that is no preheat")
	}
	var result stockd.Result
	var submitErr error
	err := g.settle(ctx, op.Pool, true, func(ctx context.Context) (bool, error) {
		res, err := g.cfg.Engine.Submit(ctx, cmd)
		result, submitErr = res, err
		return err == nil && res.Err == nil && !res.Replayed, err
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
	err := g.settle(ctx, pool, false, func(context.Context) (bool, error) { return true, nil })
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
	errFillRaced  = errors.New("gate: the returner kept adding releases newer than every read of the database")
	errLockBusy   = errors.New("gate: another process kept the campaign's settle lock")
	errPauseLost  = errors.New("gate: the settle outlived its pause: nothing written, wins may have been taken since the read")
)

const (
	// fillAttemptsMax bounds the reads of the database one settle makes
	// when the returner raced each of them (fillScript refused).
	fillAttemptsMax = 5
	// lockAttemptsMax bounds how often a preheat waits out another's
	// settle before it gives up.
	lockAttemptsMax = 3
)

// settle runs one preheat or refill of the campaign, alone across
// processes (a Redis lock, and a mutex per pool in this one): it pauses
// the gate with a pause of its own, waits until every win in flight is
// persisted (so that the database's available is exact), runs before,
// then, when before says so, writes what the database holds and reopens
// the gate. A refill that finds another settle under way waits for it and
// writes nothing (the other wrote); a preheat (mustRun) waits and then
// runs. The pause is this settle's own token with a deadline, removed
// only while it still holds that token, and the close's shut is another
// key: a settle ending after a close never reopens the gate.
func (g *Gate) settle(ctx context.Context, pool string, mustRun bool, before func(context.Context) (bool, error)) error {
	mu := g.refillMutex(pool)
	mu.Lock()
	defer mu.Unlock()
	lock := g.key(pool, "lock")
	token := g.cfg.NewID()
	for attempt := 0; ; attempt++ {
		ok, err := g.rdb.SetNX(ctx, lock, token, g.cfg.DrainTimeout+5*time.Second).Result()
		if err != nil {
			return err
		}
		if ok {
			break
		}
		if err := g.waitGone(ctx, lock); err != nil {
			return err
		}
		if !mustRun {
			return nil
		}
		if attempt+1 >= lockAttemptsMax {
			return errLockBusy
		}
	}
	defer func() {
		if err := unlockScript.Run(context.WithoutCancel(ctx), g.rdb, []string{lock}, token).Err(); err != nil {
			g.log.Warn("gate: unlock settle", "pool", pool, "err", err)
		}
	}()
	shut, err := g.rdb.Exists(ctx, g.key(pool, "shut")).Result()
	if err != nil {
		return err
	}
	if shut > 0 {
		return errShut
	}
	paused := g.key(pool, "paused")
	if err := g.rdb.Set(ctx, paused, token, g.cfg.DrainTimeout+5*time.Second).Err(); err != nil {
		return err
	}
	defer func() {
		if err := unlockScript.Run(context.WithoutCancel(ctx), g.rdb, []string{paused}, token).Err(); err != nil {
			g.log.Warn("gate: unpause", "pool", pool, "err", err)
		}
	}()
	if err := g.drain(ctx, pool); err != nil {
		return err
	}
	write, err := before(ctx)
	if err != nil || !write {
		return err
	}
	for range fillAttemptsMax {
		st, filled, err := g.databaseState(ctx, pool)
		if err != nil {
			return err
		}
		raced, err := g.write(ctx, pool, token, st, filled)
		if err != nil || !raced {
			return err
		}
	}
	return errFillRaced
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

// filled is one position as a settle writes it: what its last ledger
// entry left available, and that entry's seq (the position's mark).
type filled struct {
	sku, location string
	quantity      int64
	seq           int64
}

// write puts the positions into Redis with their marks (fillScript: all or
// none; none when the returner already added a release newer than the
// read, raced, and none when the settle's pause token is gone), then the closed positions, the campaign limit and the
// consumer group.
func (g *Gate) write(ctx context.Context, pool, token string, st *stockd.GateState, positions []filled) (raced bool, err error) {
	stream := g.streamKey(pool)
	if err := g.rdb.XGroupCreateMkStream(ctx, stream, group, "0").Err(); err != nil && !isBusyGroup(err) {
		return false, fmt.Errorf("gate: consumer group: %w", err)
	}
	if len(positions) > 0 {
		keys := make([]string, 0, 1+2*len(positions))
		keys = append(keys, g.key(pool, "paused"))
		args := make([]any, 0, 2+2*len(positions))
		args = append(args, g.markCheckArg(), token)
		for _, p := range positions {
			f := field(p.sku, p.location)
			keys = append(keys, g.stockKey(pool, f), g.markKey(pool, f))
			args = append(args, max(p.quantity, 0), p.seq)
		}
		at, err := fillScript.Run(ctx, g.rdb, keys, args...).Int64()
		if err != nil {
			return false, err
		}
		if at < 0 {
			return false, errPauseLost
		}
		if at != 0 {
			g.log.Info("gate: a release was returned while the database was read: reading it again", "pool", pool,
				"position", field(positions[at-1].sku, positions[at-1].location))
			return true, nil
		}
	}
	_, err = g.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
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
	return false, err
}

func isBusyGroup(err error) bool {
	return err != nil && len(err.Error()) >= 9 && err.Error()[:9] == "BUSYGROUP"
}

// ledgerHorizon is how far past the machine's clock a settle reads the
// ledger: an entry stamped by a replica whose clock runs ahead is still
// the position's last.
const ledgerHorizon = 24 * time.Hour

// databaseState is what a settle writes: each position of the pool as its
// last ledger entry left it (every win is persisted: settle drained them),
// with that entry's seq, and the closed positions and limit the last
// preheat and exceptions recorded.
func (g *Gate) databaseState(ctx context.Context, pool string) (*stockd.GateState, []filled, error) {
	var st stockd.GateState
	if _, err := document(ctx, g.cfg.Store, stockd.DocGate, pool, &st); err != nil {
		return nil, nil, err
	}
	var ps stockd.PoolStock
	if _, err := document(ctx, g.cfg.Store, stockd.DocPoolStock, pool, &ps); err != nil {
		return nil, nil, err
	}
	at := time.Now().Add(ledgerHorizon)
	out := make([]filled, 0, len(ps.Positions))
	for _, item := range ps.Positions {
		e, found, err := g.cfg.Store.LedgerLastAsOf(ctx, stockd.PositionKey{SKU: item.SKU, Location: item.Location, Pool: pool}, at)
		if err != nil {
			return nil, nil, err
		}
		f := filled{sku: item.SKU, location: item.Location}
		if found {
			f.quantity, f.seq = e.After.Available(), e.Seq
		}
		out = append(out, f)
	}
	return &st, out, nil
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
