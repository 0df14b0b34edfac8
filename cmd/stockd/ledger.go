package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/archive"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/store/storeurl"
)

func newLedgerCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "ledger",
		Short: "Commands on the ledger",
	}
	cmd.AddCommand(newLedgerRebuildCommand(), newLedgerArchiveCommand(), newLedgerArchivesCommand())
	return cmd
}

func newLedgerArchiveCommand() *cobra.Command {
	var cfg Config
	var before, out string
	var keepDays int
	cmd := &cobra.Command{
		Use:   "archive --before YYYY-MM-01 --out FILE",
		Short: "Move the ledger's entries before a month's start to a file of JSON lines, leaving one checkpoint entry per position",
		Long: `Archive writes every ledger entry created before --before to --out (JSON
lines), fsyncs it, reads it back and records its sha256, then replaces
each position's archived entries with one checkpoint entry holding its
counters at the cut, at most 100 positions and 10,000 entries per
transaction. It refuses unless the cut is a month's start at least
--keep-days back, verify is clean, and every consumer of the ledger
(relays, webhooks, reconciliation, alerts) has read past the cut. Run it again to finish an interrupted archive; it
never overwrites a file that is not the archive's own.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			cut, err := time.Parse(stockd.DateLayout, before)
			if err != nil || cut.Day() != 1 {
				return fmt.Errorf("--before %q: want the first day of a month, YYYY-MM-01", before)
			}
			if out == "" {
				return errors.New("--out: name the file the archived entries go to")
			}
			if keepDays < 1 {
				return fmt.Errorf("--keep-days %d: want 1 or more", keepDays)
			}
			return runLedgerArchive(cmd.Context(), cfg.DatabaseURL, archive.Config{Before: cut, Out: out, KeepDays: keepDays, Progress: cmd.OutOrStdout()})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	cmd.Flags().StringVar(&before, "before", "", "archive the entries created before this month's start, YYYY-MM-01 (UTC; required)")
	cmd.Flags().StringVar(&out, "out", "", "the file to write (JSON lines; never overwritten; required)")
	cmd.Flags().IntVar(&keepDays, "keep-days", stockd.LedgerArchiveKeepDaysDefault,
		"the cut must lie at least this many days back: the longest demand window plus a month")
	return cmd
}

func newLedgerArchivesCommand() *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   "archives",
		Short: "List the ledger's archives: cut, entries, positions, file and its sha256, and whether each finished",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return runLedgerArchives(cmd.Context(), cfg.DatabaseURL, cmd.OutOrStdout())
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	return cmd
}

// runLedgerArchives prints one line per archive record, oldest cut first.
func runLedgerArchives(ctx context.Context, databaseURL string, out io.Writer) error {
	s, err := storeurl.OpenExisting(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	archives, err := s.LedgerArchiveList(ctx)
	if err != nil {
		return err
	}
	if len(archives) == 0 {
		fmt.Fprintln(out, "the ledger was never archived")
		return nil
	}
	for _, a := range archives {
		state := "finished " + a.FinishedAt.Format(time.RFC3339)
		switch {
		case !a.Sealed():
			state = "unfinished: the file is not recorded yet; run the archive again"
		case !a.Finished():
			state = "unfinished: positions still to replace; run the archive again"
		}
		fmt.Fprintf(out, "before %s: entries up to seq %d (%d), %d positions, %s sha256 %s, %s\n",
			a.Before.Format(stockd.DateLayout), a.CutSeq, a.Entries, a.Positions, a.Path, cmp.Or(a.SHA256, "-"), state)
	}
	return nil
}

// runLedgerArchive opens the books and runs the archive; a refusal
// changes nothing.
func runLedgerArchive(ctx context.Context, databaseURL string, cfg archive.Config) error {
	s, err := storeurl.OpenExisting(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	cfg.Store = s
	res, err := archive.Run(ctx, cfg)
	if err != nil {
		return fmt.Errorf("ledger archive: %w", err)
	}
	a := res.Archive
	fmt.Fprintf(cfg.Progress, "archive before %s: %d entries up to seq %d in %s (sha256 %s), %d positions checkpointed\n",
		a.Before.Format(stockd.DateLayout), a.Entries, a.CutSeq, a.Path, a.SHA256, a.Positions)
	return nil
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
