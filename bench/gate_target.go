package bench

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/gate"
)

// drainTimeout bounds how long Check waits for the persister to write
// every win of a row to the database.
const drainTimeout = 5 * time.Minute

// gateTarget is stockd's Redis gate in-process: the reservation is decided
// by the gate's script and answered at once; a persister started for the
// row writes the wins through the same engine (and database) as
// stockd-engine. Its rows work on one gated campaign pool per dataset,
// holding all the dataset's stock.
type gateTarget struct {
	// et is stockd-engine's target, whose engine and store the gate
	// shares; a field, not embedded, so that the gate is no lifecycle
	// target (a confirm must wait for the persister).
	et     *engineTarget
	rdb    *redis.Client
	gate   *gate.Gate
	prefix string
	pool   string

	stop context.CancelFunc
	done chan struct{}

	mu sync.Mutex
	// drained is how long the last row's persister took, after the load
	// ended, to write every win (persist lag at the end of the row).
	drained time.Duration
}

func openGateTarget(ctx context.Context, redisURL string, conns int, et *engineTarget) (*gateTarget, error) {
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opts.PoolSize = conns
	quietRedis.Do(func() { redis.SetLogger(discardLogger{}) })
	rdb := redis.NewClient(opts)
	ping, cancel := context.WithTimeout(ctx, redisDialTimeout)
	defer cancel()
	if err := rdb.Ping(ping).Err(); err != nil {
		return nil, errors.Join(fmt.Errorf("redis at %s: %w", redisURL, err), rdb.Close())
	}
	prefix := "stockd-bench-gate:" + uuid.NewString()[:8] + ":"
	g := gate.New(gate.Config{Client: rdb, Store: et.store, Engine: et.engine, Prefix: prefix, DrainTimeout: time.Minute})
	return &gateTarget{et: et, rdb: rdb, gate: g, prefix: prefix}, nil
}

func (t *gateTarget) Name() string { return BaselineGate }

// Setup seeds the dataset as stockd-engine does, moves all of it into a
// gated campaign pool, preheats it and starts the persister.
func (t *gateTarget) Setup(ctx context.Context, d *Dataset) error {
	if len(d.SKUs) > stockd.PoolPositionsMax {
		return fmt.Errorf("stockd-gate: %d SKUs, above the %d positions a campaign pool holds", len(d.SKUs), stockd.PoolPositionsMax)
	}
	if err := t.et.Setup(ctx, d); err != nil {
		return err
	}
	t.pool = d.Prefix + "-gate"
	from, until := time.Now().Add(-time.Hour), time.Now().Add(24*time.Hour)
	submit := func(key string, op stockd.Operation) error {
		res, err := t.et.engine.Submit(ctx, stockd.Command{IdempotencyKey: key, RequestHash: key, Actor: actor, Op: op})
		return resultErr(res, err)
	}
	if err := submit(t.pool+"-create", &stockd.PoolCreate{Pool: stockd.Pool{ID: t.pool, Kind: stockd.PoolCampaign,
		StartsAt: &from, EndsAt: &until, Gate: stockd.PoolGateRedis}}); err != nil {
		return fmt.Errorf("gated pool: %w", err)
	}
	for _, sku := range d.SKUs {
		if err := submit(sku+"-gate-allocate", &stockd.Allocate{SKU: sku, Location: stockd.LocationDefault,
			FromPool: stockd.PoolDefault, ToPool: t.pool, Quantity: d.Stock}); err != nil {
			return fmt.Errorf("allocate %s: %w", sku, err)
		}
	}
	res, err := t.gate.Preheat(ctx, stockd.Command{IdempotencyKey: t.pool + "-preheat", RequestHash: "preheat", Actor: actor,
		Op: &stockd.GatePreheat{Pool: t.pool}})
	if err := resultErr(res, err); err != nil {
		return fmt.Errorf("preheat: %w", err)
	}
	run, stop := context.WithCancel(context.WithoutCancel(ctx))
	t.stop, t.done = stop, make(chan struct{})
	go func() { defer close(t.done); _ = t.gate.Persister(run) }()
	return nil
}

func (t *gateTarget) Reserve(ctx context.Context, req *Request) (Outcome, error) {
	r := &stockd.Reserve{TTL: req.TTL, Lines: make([]stockd.LineRequest, len(req.Lines))}
	for i, l := range req.Lines {
		r.Lines[i] = stockd.LineRequest{SKU: t.et.names[l.SKU], Quantity: l.Quantity, Location: stockd.LocationDefault, Pool: t.pool}
	}
	cmd := stockd.Command{IdempotencyKey: req.Key, RequestHash: requestHash(t.et.names, req), Actor: actor, Op: r}
	if verr := cmd.Normalize(); verr != nil {
		return Outcome{}, verr
	}
	ctx, cancel := t.et.deadline(ctx)
	defer cancel()
	p, _, err := t.gate.Pool(ctx, t.pool)
	if err != nil {
		return Outcome{}, err
	}
	return outcomeOf(t.gate.Reserve(ctx, cmd, p))
}

// Check waits until the persister wrote every win of the row, then
// compares the books as stockd-engine does.
func (t *gateTarget) Check(ctx context.Context, d *Dataset, want []Held) (CheckResult, error) {
	start := time.Now()
	for {
		rep, err := t.gate.Reconcile(ctx, t.pool)
		if err != nil {
			return CheckResult{}, err
		}
		var pending int64
		for _, p := range rep.Positions {
			pending += p.Pending
		}
		if pending == 0 {
			break
		}
		if time.Since(start) > drainTimeout {
			return CheckResult{}, fmt.Errorf("stockd-gate: %d units still not persisted after %s", pending, drainTimeout)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.mu.Lock()
	t.drained = time.Since(start)
	t.mu.Unlock()
	return t.et.Check(ctx, d, want)
}

// persistDrain is how long the last row's persister took, after the
// load ended, to write its last win.
func (t *gateTarget) persistDrain() time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.drained
}

// Cleanup stops the row's persister and deletes the row's Redis keys.
func (t *gateTarget) Cleanup(ctx context.Context, d *Dataset) error {
	if t.stop != nil {
		t.stop()
		<-t.done
		t.stop = nil
	}
	iter := t.rdb.Scan(ctx, 0, t.prefix+"{"+t.pool+"}*", redisChunk).Iterator()
	for iter.Next(ctx) {
		if err := t.rdb.Del(ctx, iter.Val()).Err(); err != nil {
			return err
		}
	}
	return iter.Err()
}

// Close closes the gate's Redis client; the engine is stockd-engine's.
func (t *gateTarget) Close() error { return t.rdb.Close() }
