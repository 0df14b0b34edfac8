package bench

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
)

// reserveScript is the seeds' three-state check-and-decrement, verbatim:
// -1 unknown key, 0 not enough, 1 taken.
const reserveScript = `local available = tonumber(redis.call('GET', KEYS[1])) if available == nil then return -1 end local num = tonumber(ARGV[1]) if available < num then return 0 end redis.call('DECRBY', KEYS[1], num) return 1`

const (
	// redisChunk bounds the keys of one pipelined seed, read or delete.
	redisChunk = 1000
	// redisDialTimeout bounds the reachability check.
	redisDialTimeout   = 2 * time.Second
	redisDialerRetries = 2
)

// quietRedis silences go-redis's own logging, which would write over the
// progress bar; every failure it logs also reaches the bench as an error.
var quietRedis sync.Once

type discardLogger struct{}

func (discardLogger) Printf(context.Context, string, ...any) {}

// redisLua is the seeds' Redis counter: one key per SKU, the script run
// with EVALSHA. A multi-line order runs the script line by line in SKU
// order and gives back what it took when a later line fails: Redis has no
// transaction that spans the script's decision.
type redisLua struct {
	client *redis.Client
	script *redis.Script
	keys   []string
}

// openRedisLua connects and loads the script; an error says why the
// baseline is skipped.
func openRedisLua(ctx context.Context, redisURL string, connsMax int) (*redisLua, error) {
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opts.PoolSize = connsMax
	opts.DialTimeout = redisDialTimeout
	opts.DialerRetries = redisDialerRetries
	quietRedis.Do(func() { redis.SetLogger(discardLogger{}) })
	client := redis.NewClient(opts)
	ctx, cancel := context.WithTimeout(ctx, redisDialTimeout)
	defer cancel()
	script := redis.NewScript(reserveScript)
	if err := script.Load(ctx, client).Err(); err != nil {
		return nil, errors.Join(fmt.Errorf("redis at %s: %w", opts.Addr, err), client.Close())
	}
	return &redisLua{client: client, script: script}, nil
}

func (b *redisLua) Name() string { return BaselineRedisLua }

func (b *redisLua) key(sku string) string { return "stockd-bench:" + sku }

func (b *redisLua) Setup(ctx context.Context, d *Dataset) error {
	b.keys = make([]string, len(d.SKUs))
	for i, sku := range d.SKUs {
		b.keys[i] = b.key(sku)
	}
	return chunked(b.keys, func(keys []string) error {
		pipe := b.client.Pipeline()
		for _, k := range keys {
			pipe.Set(ctx, k, d.Stock, 0)
		}
		_, err := pipe.Exec(ctx)
		return err
	})
}

func (b *redisLua) Reserve(ctx context.Context, req *Request) (Outcome, error) {
	for i, l := range req.Lines {
		n, err := b.script.Run(ctx, b.client, []string{b.keys[l.SKU]}, l.Quantity).Int()
		if err == nil && n == 1 {
			continue
		}
		if err == nil && n == -1 {
			err = fmt.Errorf("key %s missing", b.keys[l.SKU])
		}
		// Give back the lines already taken.
		for _, done := range req.Lines[:i] {
			if uerr := b.client.IncrBy(ctx, b.keys[done.SKU], done.Quantity).Err(); uerr != nil {
				err = errors.Join(err, uerr)
			}
		}
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{Status: Rejected}, nil
	}
	return Outcome{Status: Won}, nil
}

// Check reads every counter: counter + taken == stock, never negative.
func (b *redisLua) Check(ctx context.Context, d *Dataset, want []Held) (CheckResult, error) {
	got := make(map[string]int64, len(b.keys))
	err := chunked(b.keys, func(keys []string) error {
		values, err := b.client.MGet(ctx, keys...).Result()
		if err != nil {
			return err
		}
		for i, v := range values {
			s, ok := v.(string)
			if !ok {
				continue // missing key: reported as such below
			}
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				return fmt.Errorf("key %s holds %q", keys[i], s)
			}
			got[keys[i]] = n
		}
		return nil
	})
	if err != nil {
		return CheckResult{}, fmt.Errorf("read counters: %w", err)
	}
	return compareBooks(d, want, func(i int) (stockd.Counters, bool) {
		available, ok := got[b.keys[i]]
		return stockd.Counters{OnHand: d.Stock, Reserved: d.Stock - available}, ok
	}), nil
}

// Cleanup deletes the row's keys.
func (b *redisLua) Cleanup(ctx context.Context, _ *Dataset) error {
	return chunked(b.keys, func(keys []string) error { return b.client.Unlink(ctx, keys...).Err() })
}

func (b *redisLua) Close() error { return b.client.Close() }

func chunked(keys []string, fn func([]string) error) error {
	for len(keys) > 0 {
		n := min(len(keys), redisChunk)
		if err := fn(keys[:n]); err != nil {
			return err
		}
		keys = keys[n:]
	}
	return nil
}
