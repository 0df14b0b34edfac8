package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd/replenish"
	"github.com/stockd/stockd/replenish/backtest"
)

// newReplenishCommand is `stockd replenish`: on its own, the figures of
// GET /v1/replenishment read from the database; its subcommands are the
// policy's offline tools, which read and write files only.
func newReplenishCommand() *cobra.Command {
	var o replenishOptions
	cmd := &cobra.Command{
		Use:   "replenish [--as-of DATE] [--status LEVEL] [--sku SKU] [--csv] [--by-location]",
		Short: "Replenishment: print every SKU's reorder figures; backtest the policy, generate demand traces",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return runReplenishTable(cmd.Context(), o, cmd.OutOrStdout())
		},
	}
	bindReplenishTableFlags(cmd, &o)
	cmd.AddCommand(newReplenishBacktestCommand(), newReplenishGenTraceCommand())
	return cmd
}

func newReplenishBacktestCommand() *cobra.Command {
	var demandPath, skusPath, outDir, orderRule, history, estimator string
	c := backtest.DefaultConfig()
	cmd := &cobra.Command{
		Use:   "backtest --demand demand.csv --skus skus.csv [--seed N] [--out DIR]",
		Short: "Replay a demand trace through the replenishment policy and the fixed rule \"order when available < 10\", side by side",
		Long: "Replays demand.csv (sku,date,quantity) day by day for the SKUs of skus.csv under the replenishment\n" +
			"policy and under the fixed rule, with the same realised lead times, and writes DIR/" + backtest.OrdersFile + ",\n" +
			"DIR/" + backtest.NotificationsFile + " (and the fixed rule's " + backtest.FixedOrdersFile + ", " + backtest.FixedNotificationsFile + ")\n" +
			"and DIR/" + backtest.SummaryFile + ", replacing files of those names. The summary is printed too.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c.OrderRule = replenish.OrderRule(orderRule)
			c.History = backtest.History(history)
			c.Estimator = replenish.Estimator(estimator)
			return runBacktest(skusPath, demandPath, outDir, c, cmd.OutOrStdout())
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&demandPath, "demand", "", "demand trace, header "+backtest.DemandHeader+" (required)")
	fs.StringVar(&skusPath, "skus", "", "SKU settings, header "+backtest.SKUsHeader+" (required)")
	fs.StringVar(&outDir, "out", ".", "directory for the output files (created if missing)")
	fs.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the realised lead times")
	fs.StringVar(&orderRule, "order-rule", string(c.OrderRule), "order-up-to rule: "+joinRules())
	fs.StringVar(&estimator, "estimator", string(c.Estimator), "the reorder point's reading of the demand window: "+joinEstimators())
	fs.StringVar(&history, "history", string(c.History), "what the policy is shown of the past: demand (what customers asked for) or sales (what was served, as a ledger sees it)")
	fs.IntVar(&c.DemandWindowDays, "demand-window-days", c.DemandWindowDays, "days of history behind d̄ and σ_d")
	fs.IntVar(&c.ReviewDays, "review-days", c.ReviewDays, "the policy orders every this many days")
	fs.IntVar(&c.SlowMovingDays, "slow-moving-days", c.SlowMovingDays, "days of cover above which stock is slow moving")
	fs.Float64Var(&c.ColdStartDefault.MeanDaily, "default-mean-daily", c.ColdStartDefault.MeanDaily, "deployment default d̄ for SKUs and categories without 14 days of history")
	fs.Float64Var(&c.ColdStartDefault.StddevDaily, "default-stddev-daily", c.ColdStartDefault.StddevDaily, "deployment default σ_d (must be positive)")
	fs.Int64Var(&c.FixedThreshold, "fixed-threshold", c.FixedThreshold, "the fixed rule alerts and orders below this many units available")
	_ = cmd.MarkFlagRequired("demand")
	_ = cmd.MarkFlagRequired("skus")
	return cmd
}

func joinRules() string {
	names := make([]string, len(replenish.OrderRules))
	for i, r := range replenish.OrderRules {
		names[i] = string(r)
	}
	return strings.Join(names, ", ")
}

func joinEstimators() string {
	names := make([]string, len(replenish.Estimators))
	for i, e := range replenish.Estimators {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

func runBacktest(skusPath, demandPath, outDir string, c backtest.Config, out io.Writer) error {
	skus, err := os.Open(skusPath)
	if err != nil {
		return fmt.Errorf("backtest: %w", err)
	}
	defer skus.Close()
	demand, err := os.Open(demandPath)
	if err != nil {
		return fmt.Errorf("backtest: %w", err)
	}
	defer demand.Close()
	trace, err := backtest.ReadTrace(skus, demand)
	if err != nil {
		return fmt.Errorf("backtest: nothing replayed: %w", err)
	}
	res, err := backtest.Run(trace, c)
	if err != nil {
		return fmt.Errorf("backtest: %w", err)
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("backtest: %w", err)
	}
	if err := res.WriteFiles(trace, outDir); err != nil {
		return fmt.Errorf("backtest: %w", err)
	}
	fmt.Fprintf(out, "%d SKUs, %d days from %s, lead-time seed %d\n", len(trace.SKUs), trace.Days, trace.Date(0), c.Seed)
	if err := res.WriteSummary(out); err != nil {
		return err
	}
	fmt.Fprintln(out, "wrote", filepath.Join(outDir, backtest.OrdersFile), "and the rest to", outDir)
	return nil
}

func newReplenishGenTraceCommand() *cobra.Command {
	var skus, days int
	var seed uint64
	var outDir string
	cmd := &cobra.Command{
		Use:   "gen-trace --skus 1000 --days 365 --seed N --out DIR",
		Short: "Generate a seeded demand trace (slow, fast and seasonal SKUs; lead times 3-21 days ± 30 %) as DIR/demand.csv and DIR/skus.csv",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			trace, err := backtest.GenTrace(seed, skus, days)
			if err != nil {
				return err
			}
			if err := os.MkdirAll(outDir, 0o755); err != nil {
				return fmt.Errorf("gen-trace: %w", err)
			}
			if err := trace.WriteFiles(outDir); err != nil {
				return fmt.Errorf("gen-trace: %w", err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d SKUs over %d days to %s and %s\n", skus, days,
				filepath.Join(outDir, backtest.DemandFile), filepath.Join(outDir, backtest.SKUsFile))
			return nil
		},
	}
	fs := cmd.Flags()
	fs.IntVar(&skus, "skus", 1000, fmt.Sprintf("number of SKUs (1 to %d)", backtest.SKUsMax))
	fs.IntVar(&days, "days", 365, fmt.Sprintf("days of demand (1 to %d)", backtest.TraceDaysMax))
	fs.Uint64Var(&seed, "seed", 1, "seed: the same seed gives the same trace")
	fs.StringVar(&outDir, "out", ".", "directory for demand.csv and skus.csv (created if missing)")
	return cmd
}
