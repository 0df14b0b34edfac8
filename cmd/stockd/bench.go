package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd/bench"
)

// newBenchCommand is `stockd bench`: scenarios against stockd and the
// seeds' baselines in one run, one table out. Unlike the other commands it
// reads no STOCKD_* variables: a benchmark writes rows, so the database it
// writes to must be named on the command line.
func newBenchCommand() *cobra.Command {
	var (
		cfg                            bench.Config
		scenarios, baselines, jsonPath string
		cpuProfilePath                 string
		fresh, noProgress              bool
	)
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Benchmark reservations against stockd and the seeds' baselines (a benchmark, not a test)",
		Long: `bench runs closed-loop scenarios (hot, spread, zipf, orders, flash, lifecycle) at each
concurrency against stockd (--target engine in-process, or --target http --url a running server)
and, in the same run and database, against the baselines naive-update, select-for-update and
redis-lua. It prints one table: throughput, exact p50/p95/p99 latency, successes, rejections,
errors, oversold (must be 0), the books' check and verify (must be clean), and stockd's ratio to
each baseline. Rows use SKUs named after a fresh run id, so it can run against an existing
database; baselines keep to their own tables (bench_inventory, bench_ledger) and Redis keys
(stockd-bench:*), removed after each row. It never changes database settings.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if fresh && cfg.DatabaseURL != "" {
				return errors.New("--fresh makes its own SQLite file: drop --database-url, or --fresh")
			}
			cfg.Scenarios = bench.ParseList(scenarios)
			cfg.Baselines = bench.ParseList(baselines)
			if !noProgress {
				cfg.Progress = cmd.ErrOrStderr()
			}
			if cpuProfilePath != "" {
				f, err := os.Create(cpuProfilePath)
				if err != nil {
					return fmt.Errorf("cpu profile: %w", err)
				}
				defer f.Close()
				if err := pprof.StartCPUProfile(f); err != nil {
					return fmt.Errorf("cpu profile: %w", err)
				}
				defer pprof.StopCPUProfile()
			}
			rep, runErr := bench.Run(cmd.Context(), cfg)
			if len(rep.Rows) > 0 {
				if err := rep.WriteTable(cmd.OutOrStdout()); err != nil {
					return err
				}
				if jsonPath != "" {
					if err := writeJSON(jsonPath, rep); err != nil {
						return err
					}
				}
			}
			if runErr != nil {
				return fmt.Errorf("bench: %w", runErr)
			}
			if rep.Failed() {
				return errors.New("bench: a row oversold, failed, or left books that disagree (see the table)")
			}
			return nil
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&cfg.Target, "target", bench.TargetEngine, "engine (in-process) or http")
	fs.StringVar(&cfg.URL, "url", "", "base URL of a running stockd, for --target http (e.g. http://127.0.0.1:8080)")
	fs.StringVar(&cfg.APIKey, "api-key", "", "http target: API key sent as Authorization: Bearer (a server with keys needs one; its per-key rate limit applies)")
	fs.StringVar(&cfg.DatabaseURL, "database-url", "", "postgres://… or sqlite://PATH: stockd's books (engine target) and the SQL baselines' tables")
	fs.BoolVar(&fresh, "fresh", false, "use a new SQLite file in a temporary directory (the default when --database-url is not given)")
	fs.StringVar(&cfg.RedisURL, "redis-url", bench.RedisURLDefault, "Redis of the redis-lua baseline; unreachable skips that baseline")
	fs.StringVar(&scenarios, "scenarios", "hot,spread,zipf,orders,flash,lifecycle", "comma list of scenarios")
	fs.StringVar(&baselines, "baselines", "naive-update,select-for-update,redis-lua", "comma list of baselines, or none")
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
	fs.StringVar(&jsonPath, "json", "", "also write the report as JSON to this file")
	fs.StringVar(&cpuProfilePath, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	fs.BoolVar(&noProgress, "no-progress", false, "no progress bar on stderr")
	return cmd
}

func writeJSON(path string, rep bench.Report) error {
	raw, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	if err := os.WriteFile(path, append(raw, '\n'), 0o644); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
