// Package gate is the Redis gate of a campaign pool (stockd.Pool.Gate):
// a flash sale's reservations are decided by one Lua script in Redis,
// answered at once with a pre-assigned reservation id, and persisted
// through the engine by a persister reading a Redis Stream. The database
// stays the ledger: what it refuses becomes an exception record and
// closes the position, and reconciliation reports drift without fixing it.
package gate

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// ErrUnavailable wraps a failure of the gate's Redis, as opposed to one
// of the database.
var ErrUnavailable = errors.New("gate: redis unavailable")

// Submitter applies commands: the engine.
type Submitter interface {
	Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error)
}

// Config configures a Gate.
type Config struct {
	// Client is the gate's Redis. Required.
	Client *redis.Client
	// Store serves the reads of refills and reconciliation. Required.
	Store store.Store
	// Engine persists wins and records preheats and exceptions. Required.
	Engine Submitter
	// Prefix starts every key. Defaults to "stockd:gate:".
	Prefix string
	// DrainTimeout bounds how long a preheat or refill waits for the
	// persister to persist every win in flight. Defaults to 10 seconds.
	DrainTimeout time.Duration
	// ReplayTTL is how long Redis keeps a win's answer for a retry under
	// its key. Defaults to 24 hours.
	ReplayTTL time.Duration
	// Consumer names this process in the persister's consumer group.
	// Defaults to a new random name.
	Consumer string
	// ClaimIdle is how long another consumer's entry stays unacknowledged
	// before this persister takes it over. Defaults to 30 seconds.
	ClaimIdle time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Now defaults to time.Now; NewID to a UUIDv7.
	Now   func() time.Time
	NewID func() string
}

const (
	prefixDefault       = "stockd:gate:"
	drainTimeoutDefault = 10 * time.Second
	replayTTLDefault    = 24 * time.Hour
	claimIdleDefault    = 30 * time.Second
	// group is the persister's consumer group on every campaign's stream.
	group = "persister"
	// poolCacheTTL is how long the gate trusts a pool document it read:
	// the gate and window never change, only the close does, and a
	// campaign close pauses the gate itself.
	poolCacheTTL = time.Second
	// refillAttemptsMax bounds the refills one reservation may trigger.
	refillAttemptsMax = 2
	// pollInterval paces waits on Redis state (drain, another's refill).
	pollInterval = 20 * time.Millisecond
)

// Gate decides gated reservations in Redis.
type Gate struct {
	cfg    Config
	rdb    *redis.Client
	prefix string
	log    *slog.Logger

	poolsMu sync.Mutex
	pools   map[string]cachedPool

	// refills serializes this process's refills per pool; a Redis lock
	// serializes them across processes.
	refillsMu sync.Mutex
	refills   map[string]*sync.Mutex

	metrics *metrics
	// markCheckOff switches the mark check of the return and fill scripts
	// off: only the tests' negative control sets it.
	markCheckOff atomic.Bool
	// returner is what the returner reports of itself.
	returnerMu sync.Mutex
	returner   ReturnerStatus
}

type cachedPool struct {
	pool  stockd.Pool
	found bool
	at    time.Time
}

// New returns a gate; it does not touch Redis until used.
func New(cfg Config) *Gate {
	if cfg.Client == nil || cfg.Store == nil || cfg.Engine == nil {
		panic("gate: Config.Client, Store and Engine are required")
	}
	if cfg.Prefix == "" {
		cfg.Prefix = prefixDefault
	}
	if cfg.DrainTimeout <= 0 {
		cfg.DrainTimeout = drainTimeoutDefault
	}
	if cfg.ReplayTTL <= 0 {
		cfg.ReplayTTL = replayTTLDefault
	}
	if cfg.ClaimIdle <= 0 {
		cfg.ClaimIdle = claimIdleDefault
	}
	if cfg.Consumer == "" {
		cfg.Consumer = "stockd-" + uuid.NewString()
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	g := &Gate{cfg: cfg, rdb: cfg.Client, prefix: cfg.Prefix, log: cfg.Logger,
		pools: map[string]cachedPool{}, refills: map[string]*sync.Mutex{}}
	g.metrics = newMetrics(g.ReturnerStatus)
	return g
}

// Register adds the gate's metrics to reg: once per gate.
func (g *Gate) Register(reg prometheus.Registerer) error {
	return g.metrics.register(reg)
}

// CheckConfig refuses a Redis that may evict keys: an evicted stock key
// reads as "not preheated", and an evicted stream loses wins. With
// allowEviction it only warns. It returns warnings about persistence: with
// AOF off, an acknowledged win not yet persisted is lost with Redis.
func CheckConfig(ctx context.Context, rdb *redis.Client, allowEviction bool) ([]string, error) {
	policy, err := configGet(ctx, rdb, "maxmemory-policy")
	if err != nil {
		return nil, fmt.Errorf("gate: read redis maxmemory-policy (CONFIG GET refused? --gate-allow-eviction skips the check): %w", err)
	}
	var warnings []string
	if policy != "noeviction" {
		msg := fmt.Sprintf("redis maxmemory-policy is %q, not noeviction: under memory pressure Redis may evict stock keys and the stream of wins", policy)
		if !allowEviction {
			return nil, errors.New("gate: " + msg + " (set maxmemory-policy noeviction, or --gate-allow-eviction for tests)")
		}
		warnings = append(warnings, msg)
	}
	aof, err := configGet(ctx, rdb, "appendonly")
	if err != nil {
		return nil, fmt.Errorf("gate: read redis appendonly: %w", err)
	}
	if aof != "yes" {
		warnings = append(warnings, "redis appendonly is off: a restart of Redis loses the wins not yet persisted to the database")
	}
	return warnings, nil
}

func configGet(ctx context.Context, rdb *redis.Client, name string) (string, error) {
	m, err := rdb.ConfigGet(ctx, name).Result()
	if err != nil {
		return "", err
	}
	v, ok := m[name]
	if !ok {
		return "", fmt.Errorf("redis has no setting %s", name)
	}
	return v, nil
}

// Pool returns the pool document of id when it names the Redis gate.
func (g *Gate) Pool(ctx context.Context, id string) (stockd.Pool, bool, error) {
	// The cache ages on the machine's clock, whatever clock decides.
	now := time.Now()
	g.poolsMu.Lock()
	c, ok := g.pools[id]
	g.poolsMu.Unlock()
	if ok && now.Sub(c.at) < poolCacheTTL {
		return c.pool, c.found && c.pool.Gate == stockd.PoolGateRedis, nil
	}
	var p stockd.Pool
	found, err := document(ctx, g.cfg.Store, stockd.DocPool, id, &p)
	if err != nil {
		return stockd.Pool{}, false, err
	}
	g.poolsMu.Lock()
	if len(g.pools) >= poolCacheEntriesMax {
		clear(g.pools)
	}
	g.pools[id] = cachedPool{pool: p, found: found, at: now}
	g.poolsMu.Unlock()
	return p, found && p.Gate == stockd.PoolGateRedis, nil
}

// poolCacheEntriesMax bounds the pools the gate remembers.
const poolCacheEntriesMax = 10000

// GatedPools lists the pools that name the gate, closed ones included: a
// win taken just before the close is still in its stream, and the
// persister must end it (the database refuses it: an exception).
func (g *Gate) GatedPools(ctx context.Context) ([]string, error) {
	docs, err := g.gatedPoolDocs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(docs))
	for _, p := range docs {
		out = append(out, p.ID)
	}
	return out, nil
}

// gatedPoolDocs reads every pool that names the gate, closed or not.
func (g *Gate) gatedPoolDocs(ctx context.Context) ([]stockd.Pool, error) {
	var out []stockd.Pool
	after := ""
	for {
		docs, err := g.cfg.Store.DocumentList(ctx, store.DocumentListParams{Kind: stockd.DocPool, After: after, Limit: stockd.PageSizeMax})
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			var p stockd.Pool
			if err := decode(d.Body, &p); err != nil {
				return nil, err
			}
			if p.Gate == stockd.PoolGateRedis {
				out = append(out, p)
			}
		}
		if len(docs) < stockd.PageSizeMax {
			return out, nil
		}
		after = docs[len(docs)-1].ID
	}
}

// Pending reports whether reservation id is a win of a gated pool that the
// persister has not yet persisted.
func (g *Gate) Pending(ctx context.Context, id string) (bool, error) {
	pools, err := g.GatedPools(ctx)
	if err != nil {
		return false, err
	}
	if len(pools) == 0 {
		return false, nil
	}
	pipe := g.rdb.Pipeline()
	cmds := make([]*redis.BoolCmd, len(pools))
	for i, p := range pools {
		cmds[i] = pipe.HExists(ctx, g.key(p, "pending"), id)
	}
	if _, err := pipe.Exec(ctx); err != nil {
		return false, fmt.Errorf("%w: pending: %w", ErrUnavailable, err)
	}
	for _, c := range cmds {
		if c.Val() {
			return true, nil
		}
	}
	return false, nil
}

// Shut closes the gate of a closed campaign for good: no win after the
// close, and every reservation of it answers campaign_not_active. The
// shut is a key of its own, which no settle's pause overwrites or
// removes. A failure is counted (step "shut"); the keeper shuts again
// every closed campaign it finds open.
func (g *Gate) Shut(ctx context.Context, pool string) error {
	g.poolsMu.Lock()
	delete(g.pools, pool)
	g.poolsMu.Unlock()
	if err := g.rdb.Set(ctx, g.key(pool, "shut"), "closed", 0).Err(); err != nil {
		g.metrics.returnFailures.WithLabelValues(stepShut).Inc()
		return fmt.Errorf("%w: shut %s: %w", ErrUnavailable, pool, err)
	}
	return nil
}

// markCheckArg is the scripts' switch of the mark check: always on, but
// for the tests' negative control.
func (g *Gate) markCheckArg() string {
	if g.markCheckOff.Load() {
		return "0"
	}
	return "1"
}

// unavailable answers a Redis failure: retryable, the error itself only
// in the log.
func (g *Gate) unavailable(err error) stockd.Result {
	g.log.Warn("gate: redis", "err", err)
	return stockd.Result{Err: stockd.Errorf(stockd.CodeGateUnavailable, "the gate's Redis does not answer: retry later with the same idempotency key")}
}
