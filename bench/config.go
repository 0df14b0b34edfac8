// Package bench is the load generator behind cmd/stockd-bench: it runs
// closed-loop scenarios against stockd (the engine in-process, or a running
// server over HTTP) and, in the same run, against the seeds' baselines
// (per-request SQL transactions on their own tables, and a Redis Lua
// check-and-decrement), then checks every implementation's books and
// reports throughput, exact latency percentiles and ratios.
//
// It is a benchmark, not a test: it measures. Its safety checks (oversold,
// verify) are still strict, since a fast answer that oversells is worthless.
package bench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// Scenario names.
const (
	ScenarioHot       = "hot"
	ScenarioSpread    = "spread"
	ScenarioZipf      = "zipf"
	ScenarioOrders    = "orders"
	ScenarioFlash     = "flash"
	ScenarioLifecycle = "lifecycle"
)

// Baseline names.
const (
	BaselineNaiveUpdate     = "naive-update"
	BaselineSelectForUpdate = "select-for-update"
	BaselineRedisLua        = "redis-lua"
	// BaselineGate is stockd's own Redis gate (package gate) in-process,
	// beside the engine: not a baseline of the seeds, but run and
	// reported as one so that it shares the row's dataset sizes.
	BaselineGate = "stockd-gate"
)

// Target names.
const (
	TargetEngine = "engine"
	TargetHTTP   = "http"
)

// ScenariosAll and BaselinesAll are the defaults, in report order.
var (
	ScenariosAll = []string{ScenarioHot, ScenarioSpread, ScenarioZipf, ScenarioOrders, ScenarioFlash, ScenarioLifecycle}
	BaselinesAll = []string{BaselineNaiveUpdate, BaselineSelectForUpdate, BaselineRedisLua}
	// baselinesKnown adds what runs only when asked: stockd-gate needs a
	// Redis and the engine target.
	baselinesKnown = append(slices.Clone(BaselinesAll), BaselineGate)
)

// Bounds on every input: a benchmark that can be asked for anything can
// also be asked to exhaust the machine.
const (
	ConcurrencyMax       = 4096
	concurrencyLevelsMax = 16
	DurationMin          = 100 * time.Millisecond
	DurationMax          = 10 * time.Minute
	SKUCountMax          = 100_000
	FlashContendersMax   = 1_000_000
	BaselineConnsMax     = 512
	// URLsMax bounds the replicas the http target spreads requests over.
	URLsMax = 16
	// latencySamplesMax bounds the latencies kept per row (8 bytes each);
	// past it requests are still counted but no longer timed.
	latencySamplesMax = 32 << 20
	// stockMax is the stock of the large scenarios: far above what any run
	// can reserve, far below stockd.QuantityMax.
	stockMax int64 = 100_000_000_000
)

// Defaults.
const (
	DurationDefault        = 10 * time.Second
	WarmupDefault          = time.Second
	RedisURLDefault        = "redis://127.0.0.1:6379/0"
	SKUCountDefault        = 10_000
	FlashStockDefault      = 5_000
	FlashContendersDefault = 20_000
	LifecycleTTLDefault    = 2 * time.Second
	BaselineConnsDefault   = 64
)

var concurrencyDefault = []int{64, 256, 1024}

// Config configures Run. Zero values mean the documented default.
type Config struct {
	// Target is "engine" (in-process) or "http". Defaults to engine.
	Target string
	// URL is the base URL of a running server, for the http target, or a
	// comma list of up to URLsMax replicas on one database: requests go to
	// each in turn.
	URL string
	// APIKey, when set, is presented by the http target as
	// Authorization: Bearer. A server with keys needs one; mind its per-key
	// rate limit (serve --key-requests-per-second -1 lifts it).
	APIKey string
	// DatabaseURL is sqlite://PATH or postgres://…. The engine target opens
	// stockd's books there; baselines create their own tables there. Empty
	// with the engine target: a fresh SQLite file in a temporary directory.
	DatabaseURL string
	// RedisURL is the Redis of the redis-lua baseline. Defaults to
	// redis://127.0.0.1:6379/0.
	RedisURL string
	// Scenarios to run, in order. Defaults to ScenariosAll.
	Scenarios []string
	// Baselines to run beside stockd. Nil means BaselinesAll; an empty
	// non-nil slice runs none.
	Baselines []string
	// Concurrency lists the closed-loop caller counts. Defaults to 64, 256, 1024.
	Concurrency []int
	// Duration of each row (flash ends when every contender was answered).
	// Defaults to 10 seconds.
	Duration time.Duration
	// Warmup is an unmeasured run before each row (not flash, whose stock
	// it would take). Defaults to 1 second; negative means none.
	Warmup time.Duration
	// BatchSizeMax and Appliers configure the engine; zero is the engine's
	// default batch size and 2 appliers on PostgreSQL, 1 on SQLite.
	BatchSizeMax int
	Appliers     int
	// BaselineConns caps the connections of each baseline's pool (SQL and
	// Redis); a row uses min(concurrency, BaselineConns). SQLite baselines
	// always use one connection: SQLite has one writer. Defaults to 64.
	BaselineConns int
	// SKUCount is the catalogue of spread, zipf, orders and lifecycle.
	// Defaults to 10,000.
	SKUCount int
	// FlashStock and FlashContenders shape the flash sale. Default 5,000 and 20,000.
	FlashStock      int64
	FlashContenders int
	// LifecycleTTL is the hold of lifecycle reservations. Defaults to 2 seconds.
	LifecycleTTL time.Duration
	// Verify runs audit.Verify over stockd's books after each stockd row.
	// It reads the whole ledger, so it is slow on a big database. Defaults
	// to true; set SkipVerify to turn it off.
	SkipVerify bool
	// SkipAnalyze turns off the ANALYZE the bench runs on PostgreSQL after
	// seeding each row, on stockd's tables and the baselines' (what
	// autovacuum does on a server that has it on: without statistics the
	// planner may choose sequential scans for primary-key lookups).
	SkipAnalyze bool
	// RequestTimeout gives each engine-target call a deadline, as serve
	// gives each HTTP request (--request-timeout); a call past it counts
	// as an error and is retried with its key. Zero means no deadline.
	RequestTimeout time.Duration
	// DatabaseLatency, on PostgreSQL, puts a proxy in front of the database
	// that delays every answer by this much: each round trip takes that
	// much longer, as with a database in another zone or a congested link.
	// It applies while a row warms up and is measured, not while it is
	// seeded, checked and verified. Zero means none.
	DatabaseLatency time.Duration
	// Progress receives a progress bar (stderr); nil shows none.
	Progress io.Writer
}

func (c Config) withDefaults() Config {
	if c.Target == "" {
		c.Target = TargetEngine
	}
	if c.RedisURL == "" {
		c.RedisURL = RedisURLDefault
	}
	if len(c.Scenarios) == 0 {
		c.Scenarios = ScenariosAll
	}
	if c.Baselines == nil {
		c.Baselines = BaselinesAll
	}
	if len(c.Concurrency) == 0 {
		c.Concurrency = concurrencyDefault
	}
	if c.Duration == 0 {
		c.Duration = DurationDefault
	}
	if c.Warmup == 0 {
		c.Warmup = WarmupDefault
	}
	if c.BaselineConns == 0 {
		c.BaselineConns = BaselineConnsDefault
	}
	if c.SKUCount == 0 {
		c.SKUCount = SKUCountDefault
	}
	if c.FlashStock == 0 {
		c.FlashStock = FlashStockDefault
	}
	if c.FlashContenders == 0 {
		c.FlashContenders = FlashContendersDefault
	}
	if c.LifecycleTTL == 0 {
		c.LifecycleTTL = LifecycleTTLDefault
	}
	return c
}

func (c Config) validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	switch c.Target {
	case TargetEngine:
	case TargetHTTP:
		urls := ParseList(c.URL)
		if len(urls) == 0 || len(urls) > URLsMax {
			bad("target http needs --url http://HOST:PORT (or 2 to %d of them, comma separated), got %q", URLsMax, c.URL)
		}
		for _, u := range urls {
			if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				bad("target http needs --url http://HOST:PORT, got %q", u)
			}
		}
	default:
		bad("target %q: want engine or http", c.Target)
	}
	if c.RequestTimeout < 0 || c.DatabaseLatency < 0 || c.DatabaseLatency > 10*time.Second {
		bad("request timeout %v and database latency %v: want 0 or more, latency at most 10s", c.RequestTimeout, c.DatabaseLatency)
	}
	for _, s := range c.Scenarios {
		if !slices.Contains(ScenariosAll, s) {
			bad("scenario %q: want one of %s", s, strings.Join(ScenariosAll, ", "))
		}
	}
	for _, b := range c.Baselines {
		if !slices.Contains(baselinesKnown, b) {
			bad("baseline %q: want one of %s, or none", b, strings.Join(baselinesKnown, ", "))
		}
	}
	if len(c.Concurrency) > concurrencyLevelsMax {
		bad("%d concurrency levels: at most %d", len(c.Concurrency), concurrencyLevelsMax)
	}
	for _, n := range c.Concurrency {
		if n < 1 || n > ConcurrencyMax {
			bad("concurrency %d: want 1 to %d", n, ConcurrencyMax)
		}
	}
	if c.Duration < DurationMin || c.Duration > DurationMax {
		bad("duration %v: want %v to %v", c.Duration, DurationMin, DurationMax)
	}
	if c.Warmup > DurationMax {
		bad("warmup %v: at most %v", c.Warmup, DurationMax)
	}
	if c.BatchSizeMax < 0 || c.BatchSizeMax > 8192 {
		bad("batch size max %d: want 0 to 8192", c.BatchSizeMax)
	}
	if c.Appliers < 0 || c.Appliers > 64 {
		bad("appliers %d: want 0 to 64", c.Appliers)
	}
	if c.BaselineConns < 1 || c.BaselineConns > BaselineConnsMax {
		bad("baseline connections %d: want 1 to %d", c.BaselineConns, BaselineConnsMax)
	}
	if c.SKUCount < 1 || c.SKUCount > SKUCountMax {
		bad("sku count %d: want 1 to %d", c.SKUCount, SKUCountMax)
	}
	if c.FlashStock < 1 || c.FlashStock > int64(FlashContendersMax) {
		bad("flash stock %d: want 1 to %d", c.FlashStock, FlashContendersMax)
	}
	if c.FlashContenders < 1 || c.FlashContenders > FlashContendersMax {
		bad("flash contenders %d: want 1 to %d", c.FlashContenders, FlashContendersMax)
	}
	if c.LifecycleTTL < time.Second || c.LifecycleTTL > time.Minute {
		bad("lifecycle ttl %v: want 1s to 1m", c.LifecycleTTL)
	}
	return errors.Join(errs...)
}

// ParseList splits a comma list, trimming blanks; "none" or "" is an empty
// non-nil list.
func ParseList(s string) []string {
	out := []string{}
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" && f != "none" {
			out = append(out, f)
		}
	}
	return out
}
