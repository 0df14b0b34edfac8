package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd/bench"
)

// options are the flags that are not bench.Config fields as they stand:
// lists given as comma text, and what the command does around the run.
type options struct {
	scenarios, baselines string
	jsonPath             string
	cpuProfilePath       string
	fresh, noProgress    bool
}

// newCommand runs scenarios against stockd and the seeds' baselines in one
// run, one table out. Unlike stockd's commands it reads no STOCKD_*
// variables: a benchmark writes rows, so the database it writes to must be
// named on the command line.
func newCommand() *cobra.Command {
	var (
		cfg  bench.Config
		opts options
	)
	cmd := &cobra.Command{
		Use:   "stockd-bench",
		Short: "Benchmark reservations against stockd and the seeds' baselines (a benchmark, not a test)",
		Long: `stockd-bench runs closed-loop scenarios (hot, spread, zipf, orders, flash, lifecycle) at each
concurrency against stockd (--target engine in-process, or --target http --url a running server)
and, in the same run and database, against the baselines naive-update, select-for-update and
redis-lua. It prints one table: throughput, exact p50/p95/p99 latency, successes, rejections,
errors, oversold (must be 0), the books' check and verify (must be clean), and stockd's ratio to
each baseline. Rows use SKUs named after a fresh run id, so it can run against an existing
database; baselines keep to their own tables (bench_inventory, bench_ledger) and Redis keys
(stockd-bench:*), removed after each row. It never changes database settings.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.fresh && cfg.DatabaseURL != "" {
				return errors.New("--fresh makes its own SQLite file: drop --database-url, or --fresh")
			}
			cfg.Scenarios = bench.ParseList(opts.scenarios)
			cfg.Baselines = bench.ParseList(opts.baselines)
			if !opts.noProgress {
				cfg.Progress = cmd.ErrOrStderr()
			}
			if opts.cpuProfilePath != "" {
				stop, err := startCPUProfile(opts.cpuProfilePath)
				if err != nil {
					return err
				}
				defer stop()
			}
			rep, runErr := bench.Run(cmd.Context(), cfg)
			// A run that failed part-way still prints the rows it measured.
			if len(rep.Rows) > 0 {
				if err := rep.WriteTable(cmd.OutOrStdout()); err != nil {
					return err
				}
				if opts.jsonPath != "" {
					if err := writeJSON(opts.jsonPath, rep); err != nil {
						return err
					}
				}
			}
			if runErr != nil {
				return runErr
			}
			if rep.Failed() {
				return errors.New("a row oversold, failed, or left books that disagree (see the table)")
			}
			return nil
		},
	}
	bindFlags(cmd, &cfg, &opts)
	return cmd
}

// startCPUProfile profiles the whole run into path; stop ends the profile
// and closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(fmt.Errorf("cpu profile: %w", err), f.Close())
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close() // the profile is written; nothing useful to do with a failed close at exit
	}, nil
}
