package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/store/storeurl"
)

func newLedgerCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Commands on the ledger",
	}
	cmd.AddCommand(newLedgerRebuildCommand())
	return cmd
}

// errRebuildWrites refuses a rebuild that would write: the books change
// only through the engine, by an adjustment that names a discrepancy.
var errRebuildWrites = errors.New("ledger rebuild only runs with --dry-run: correct a position with an adjustment that names its discrepancy (POST /v1/adjustments with discrepancy_id)")

func newLedgerRebuildCommand() *cobra.Command {
	var cfg Config
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "rebuild --dry-run",
		Short: "Recompute every position from the ledger and print where the counters differ; changes nothing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			if !dryRun {
				return errRebuildWrites
			}
			return runLedgerRebuild(cmd.Context(), cfg.DatabaseURL, cmd.OutOrStdout())
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print what a rebuild would change (required)")
	return cmd
}

// runLedgerRebuild prints, per position, the counters the ledger adds up
// to beside those the books hold and the change a rebuild would make. A
// reconciliation entry counts as the position's opening balance, as in
// verify. It returns errDifferences when any position would change.
func runLedgerRebuild(ctx context.Context, databaseURL string, out io.Writer) error {
	s, err := storeurl.OpenExisting(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := audit.Verify(ctx, s)
	if err != nil {
		return fmt.Errorf("rebuild: %w", err)
	}
	changes := 0
	for _, d := range rep.Differences {
		if d.Check != stockd.DiscrepancyLedgerSum && d.Check != stockd.DiscrepancyMissingPosition {
			continue
		}
		changes++
		fmt.Fprintf(out, "%s/%s/%s: books %+v, ledger %+v, change %+v\n", d.Position.SKU, d.Position.Location, d.Position.Pool,
			d.Snapshot, d.Expected, d.Expected.Add(negate(d.Snapshot)))
	}
	fmt.Fprintf(out, "positions %d, ledger entries %d, would change %d (dry run: nothing written)\n", rep.Positions, rep.LedgerEntries, changes)
	if rep.Count > len(rep.Differences) {
		fmt.Fprintf(out, "the audit listed %d of %d differences; run again after resolving these\n", len(rep.Differences), rep.Count)
	}
	if changes > 0 {
		return errDifferences
	}
	return nil
}

func negate(c stockd.Counters) stockd.Counters {
	return stockd.Counters{
		OnHand: -c.OnHand, Reserved: -c.Reserved, Committed: -c.Committed, Quarantined: -c.Quarantined,
		InTransit: -c.InTransit, Incoming: -c.Incoming,
	}
}
