package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd/bench"
)

// bindFlags declares the flags stockd bench had, with the same names and
// defaults, so that recorded commands run unchanged but for the command.
func bindFlags(cmd *cobra.Command, cfg *bench.Config, opts *options) {
	fs := cmd.Flags()
	fs.StringVar(&cfg.Target, "target", bench.TargetEngine, "engine (in-process) or http")
	fs.StringVar(&cfg.URL, "url", "", "base URL of a running stockd, for --target http (e.g. http://127.0.0.1:8080); a comma list of replicas on one database takes requests in turn")
	fs.StringVar(&cfg.APIKey, "api-key", "", "http target: API key sent as Authorization: Bearer (a server with keys needs one; its per-key rate limit applies)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", "", "postgres://… or sqlite://PATH: stockd's books (engine target) and the SQL baselines' tables")
	fs.BoolVar(&opts.fresh, "fresh", false, "use a new SQLite file in a temporary directory (the default when --database-url is not given)")
	fs.StringVar(&cfg.RedisURL, "redis-url", bench.RedisURLDefault, "Redis of the redis-lua baseline; unreachable skips that baseline")
	fs.StringVar(&opts.scenarios, "scenarios", "hot,spread,zipf,orders,flash,lifecycle", "comma list of scenarios")
	fs.StringVar(&opts.baselines, "baselines", "naive-update,select-for-update,redis-lua", "comma list of baselines (naive-update, select-for-update, redis-lua; stockd-gate: stockd's Redis gate, in-process with --target engine, over HTTP with --target http against servers started with --redis-url), or none")
	fs.IntSliceVar(&cfg.Concurrency, "concurrency", []int{64, 256, 1024}, fmt.Sprintf("comma list of closed-loop callers, each 1 to %d", bench.ConcurrencyMax))
	fs.DurationVar(&cfg.Duration, "duration", bench.DurationDefault, "length of each row (flash ends when every contender was answered)")
	fs.DurationVar(&cfg.Warmup, "warmup", bench.WarmupDefault, "unmeasured load before each row (not flash); negative for none")
	fs.IntVar(&cfg.BatchSizeMax, "batch-size-max", 0, "engine: commands per transaction; 0 is the default")
	fs.IntVar(&cfg.Appliers, "appliers", 0, "engine: batches in flight; 0 picks 1 for SQLite and 2 for PostgreSQL")
	fs.IntVar(&cfg.BaselineConns, "baseline-conns", bench.BaselineConnsDefault, "connections of each baseline's pool (SQLite baselines always use 1)")
	fs.IntVar(&cfg.SKUCount, "sku-count", bench.SKUCountDefault, "SKUs of spread, zipf, orders and lifecycle")
	fs.BoolVar(&cfg.SkipAnalyze, "no-analyze", false, "PostgreSQL: skip the ANALYZE of stockd's and the baselines' tables after each row's warm-up (what autovacuum would do)")
	fs.BoolVar(&cfg.SkipVerify, "no-verify", false, "skip the full audit after each stockd row (it reads the whole ledger)")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", 0, "engine target: each call's deadline, as serve's --request-timeout gives each request; 0 for none")
	fs.DurationVar(&cfg.DatabaseLatency, "database-latency", 0, "PostgreSQL: delay every answer of the database by this much, through a proxy (a distant or congested database)")
	fs.StringVar(&opts.jsonPath, "json", "", "also write the report as JSON to this file")
	fs.StringVar(&opts.cpuProfilePath, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	fs.BoolVar(&opts.noProgress, "no-progress", false, "no progress bar on stderr")
}
