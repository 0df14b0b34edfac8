package gate

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
)

const (
	// persistBatchMax bounds the entries one read of a stream takes.
	persistBatchMax = 100
	// persistBlock is how long a read waits for new wins.
	persistBlock = 200 * time.Millisecond
	// poolsRefresh is how often the persister looks for new gated pools.
	poolsRefresh = 2 * time.Second
	// persistRetryWait paces a persister whose database or Redis fails.
	persistRetryWait = 500 * time.Millisecond
)

// Persister applies the wins of every gated pool's stream through the
// engine, in stream order, and acknowledges each once the database holds
// its outcome. Run it in every process serving the gate: the consumer
// group hands each entry to one of them, and entries a dead consumer left
// unacknowledged are claimed after ClaimIdle.
func (g *Gate) Persister(ctx context.Context) error {
	var pools []string
	var refreshed time.Time
	for ctx.Err() == nil {
		if time.Since(refreshed) > poolsRefresh {
			p, err := g.GatedPools(ctx)
			if err != nil {
				g.log.Warn("gate: persister: list gated pools", "err", err)
				if sleep(ctx, persistRetryWait) != nil {
					break
				}
				continue
			}
			pools, refreshed = p, time.Now()
		}
		if len(pools) == 0 {
			if sleep(ctx, poolsRefresh) != nil {
				break
			}
			refreshed = time.Time{}
			continue
		}
		if _, err := g.PersistOnce(ctx, pools, persistBlock); err != nil && ctx.Err() == nil {
			g.log.Warn("gate: persister", "err", err)
			if sleep(ctx, persistRetryWait) != nil {
				break
			}
		}
	}
	return nil
}

// PersistOnce runs one pass over pools: this consumer's own unacknowledged
// entries first, then those other consumers left idle past ClaimIdle, then
// new entries (waiting up to block for them). It returns how many entries
// it ended.
func (g *Gate) PersistOnce(ctx context.Context, pools []string, block time.Duration) (int, error) {
	done := 0
	for _, pool := range pools {
		stream := g.streamKey(pool)
		if err := g.rdb.XGroupCreateMkStream(ctx, stream, group, "0").Err(); err != nil && !isBusyGroup(err) {
			return done, fmt.Errorf("gate: consumer group of %s: %w", pool, err)
		}
		own, err := g.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: g.cfg.Consumer,
			Streams: []string{stream, "0"}, Count: persistBatchMax}).Result()
		if err != nil && err != redis.Nil {
			return done, err
		}
		for _, s := range own {
			n, err := g.persist(ctx, pool, s.Messages)
			if done += n; err != nil {
				return done, err
			}
		}
		claimed, _, err := g.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{Stream: stream, Group: group, Consumer: g.cfg.Consumer,
			MinIdle: g.cfg.ClaimIdle, Start: "0-0", Count: persistBatchMax}).Result()
		if err != nil && err != redis.Nil {
			return done, err
		}
		n, err := g.persist(ctx, pool, claimed)
		if done += n; err != nil {
			return done, err
		}
	}
	streams := make([]string, 0, 2*len(pools))
	for _, pool := range pools {
		streams = append(streams, g.streamKey(pool))
	}
	for range pools {
		streams = append(streams, ">")
	}
	fresh, err := g.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: g.cfg.Consumer,
		Streams: streams, Count: persistBatchMax, Block: block}).Result()
	if err == redis.Nil {
		return done, nil
	}
	if err != nil {
		return done, err
	}
	for _, s := range fresh {
		pool := pools[indexOf(streams[:len(pools)], s.Stream)]
		n, err := g.persist(ctx, pool, s.Messages)
		if done += n; err != nil {
			return done, err
		}
	}
	return done, nil
}

func indexOf(list []string, v string) int {
	for i, s := range list {
		if s == v {
			return i
		}
	}
	panic("gate: stream " + v + " not read")
}

// win is one stream entry decoded.
type win struct {
	streamID string
	id       string
	key      string
	hash     string
	customer string
	actor    string
	at       time.Time
	ttl      time.Duration
	lines    []entryLine
}

func decodeWin(m redis.XMessage) (win, error) {
	str := func(k string) string { s, _ := m.Values[k].(string); return s }
	w := win{streamID: m.ID, id: str("id"), key: str("key"), hash: str("hash"), customer: str("customer"), actor: str("actor")}
	at, err := time.Parse(time.RFC3339Nano, str("at"))
	if err != nil {
		return w, fmt.Errorf("entry %s: at: %w", m.ID, err)
	}
	ttl, err := strconv.ParseInt(str("ttl"), 10, 64)
	if err != nil {
		return w, fmt.Errorf("entry %s: ttl: %w", m.ID, err)
	}
	if err := json.Unmarshal([]byte(str("lines")), &w.lines); err != nil {
		return w, fmt.Errorf("entry %s: lines: %w", m.ID, err)
	}
	w.at, w.ttl = at, time.Duration(ttl)*time.Second
	return w, nil
}

// orderedSubmitter queues commands in their order and waits for all:
// *engine.Engine is one. Without it the persister submits one by one.
type orderedSubmitter interface {
	SubmitAll(ctx context.Context, cmds []stockd.Command) ([]stockd.Result, []error)
}

// persist applies entries in stream order, all queued at once so that the
// engine decides them in few batches, then ends them in order, stopping at
// the first that could not be decided (the database or Redis failing): it
// and those after it stay pending and are read again first on the next
// pass; those after it that the database applied replay by their key.
func (g *Gate) persist(ctx context.Context, pool string, entries []redis.XMessage) (int, error) {
	wins := make([]win, 0, len(entries))
	for _, m := range entries {
		w, err := decodeWin(m)
		if err != nil {
			// A malformed entry is a bug of this package; it stays pending
			// for an operator rather than being dropped.
			return 0, err
		}
		wins = append(wins, w)
	}
	if len(wins) == 0 {
		return 0, nil
	}
	if err := g.applying(ctx, pool, wins); err != nil {
		return 0, err
	}
	results, errs := g.submitAll(ctx, pool, wins)
	for i, w := range wins {
		res, err := results[i], errs[i]
		if err != nil {
			return i, fmt.Errorf("gate: persist %s: %w", w.id, err)
		}
		if res.Err == nil && res.Reservation != nil && res.Reservation.ID != w.id {
			res.Err = stockd.Errorf(stockd.CodeIdempotencyKeyReused, "the key answered reservation %s in the database", res.Reservation.ID)
		}
		if res.Err != nil {
			if err := g.except(ctx, pool, w, res.Err); err != nil {
				return i, err
			}
		}
		if err := g.ack(ctx, pool, w); err != nil {
			return i, err
		}
	}
	return len(wins), nil
}

func (g *Gate) submitAll(ctx context.Context, pool string, wins []win) ([]stockd.Result, []error) {
	cmds := make([]stockd.Command, len(wins))
	for i, w := range wins {
		cmds[i] = w.command(pool)
	}
	if o, ok := g.cfg.Engine.(orderedSubmitter); ok {
		return o.SubmitAll(ctx, cmds)
	}
	results, errs := make([]stockd.Result, len(cmds)), make([]error, len(cmds))
	for i, cmd := range cmds {
		if results[i], errs[i] = g.cfg.Engine.Submit(ctx, cmd); errs[i] != nil {
			for j := i + 1; j < len(cmds); j++ {
				errs[j] = errs[i]
			}
			break
		}
	}
	return results, errs
}

// applying records, before the engine sees them, the entries this
// persister is applying: the database may hold them before Redis hears,
// and reconciliation must not call that drift. The ack deletes each.
func (g *Gate) applying(ctx context.Context, pool string, wins []win) error {
	values := make([]any, 0, 2*len(wins))
	for _, w := range wins {
		lines, err := json.Marshal(w.lines)
		if err != nil {
			return err
		}
		values = append(values, w.streamID, lines)
	}
	return g.rdb.HSet(ctx, g.key(pool, "applying"), values...).Err()
}

func (w win) command(pool string) stockd.Command {
	r := &stockd.Reserve{ID: w.id, TTL: w.ttl, CustomerID: w.customer, Strategy: stockd.StrategyPriority}
	for _, l := range w.lines {
		r.Lines = append(r.Lines, stockd.LineRequest{SKU: l.SKU, Location: l.Location, Pool: pool, Quantity: l.Quantity})
	}
	return stockd.Command{Op: r, IdempotencyKey: w.key, RequestHash: w.hash, Actor: w.actor}
}

func (g *Gate) ack(ctx context.Context, pool string, w win) error {
	args := []any{group, w.streamID, w.id}
	for _, l := range w.lines {
		args = append(args, field(l.SKU, l.Location), l.Quantity)
	}
	keys := []string{g.streamKey(pool), g.key(pool, "inflight"), g.key(pool, "pending"), g.key(pool, "applying")}
	return ackScript.Run(ctx, g.rdb, keys, args...).Err()
}

// except records a win the database refused (stockd.GateExceptionRecord)
// and closes its positions in Redis until an operator preheats again.
func (g *Gate) except(ctx context.Context, pool string, w win, refusal *stockd.Error) error {
	e := stockd.GateException{ReservationID: w.id, Pool: pool, Key: w.key, CustomerID: w.customer,
		WonAt: w.at, Code: refusal.Code, Message: refusal.Message}
	for _, l := range w.lines {
		e.Lines = append(e.Lines, stockd.GatePosition{SKU: l.SKU, Location: l.Location, Quantity: l.Quantity})
	}
	res, err := g.cfg.Engine.Submit(ctx, stockd.Command{Op: &stockd.GateExceptionRecord{Exception: e},
		IdempotencyKey: "gate-exception:" + w.id, RequestHash: "gate-exception:" + w.id, Actor: "gate"})
	if err != nil {
		return fmt.Errorf("gate: record exception %s: %w", w.id, err)
	}
	if res.Err != nil {
		return fmt.Errorf("gate: record exception %s: %s", w.id, res.Err.Message)
	}
	if res.Created && !res.Replayed {
		g.metrics.exceptions.Inc()
	}
	for _, l := range w.lines {
		if err := g.rdb.HSet(ctx, g.key(pool, "closed"), field(l.SKU, l.Location), stockd.GateExceptionOversell).Err(); err != nil {
			return err
		}
	}
	g.log.Error("gate: the database refused a win: exception recorded, position closed", "pool", pool,
		"reservation", w.id, "code", refusal.Code, "message", refusal.Message)
	return nil
}
