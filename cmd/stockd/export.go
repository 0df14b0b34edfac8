package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// exportPageSize is how many ledger entries one read fetches: the export
// holds one page at a time, whatever the ledger's length.
const exportPageSize = stockd.PageSizeMax

var (
	stockHeader  = []string{"sku", "location", "pool", "on_hand", "reserved", "committed", "quarantined", "available", "in_transit", "incoming"}
	ledgerHeader = []string{"seq", "created_at", "type", "business_id", "sku", "location", "pool",
		"delta_on_hand", "delta_reserved", "delta_committed", "delta_quarantined",
		"on_hand", "reserved", "committed", "quarantined", "reservation_id", "actor", "reason", "reference"}
)

// newExportCommand is `stockd export`: the books as CSV, streamed, for a
// spreadsheet, an accountant or the next system.
func newExportCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write stock positions or the ledger as CSV (streamed; bounded memory)",
	}
	cmd.AddCommand(newExportStockCommand(), newExportLedgerCommand())
	return cmd
}

func newExportStockCommand() *cobra.Command {
	var cfg Config
	var out string
	cmd := &cobra.Command{
		Use:   "stock",
		Short: "Every position's counters, from one consistent snapshot; header: " + strings.Join(stockHeader, ","),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return withExport(cmd.Context(), cfg.DatabaseURL, out, cmd.OutOrStdout(), func(s store.Store, w *csv.Writer) error {
				return exportStock(cmd.Context(), s, w)
			})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	cmd.Flags().StringVar(&out, "out", "", "file to write (default: standard output)")
	return cmd
}

func newExportLedgerCommand() *cobra.Command {
	var cfg Config
	var out, from, to, sku string
	cmd := &cobra.Command{
		Use:   "ledger [--from TIME] [--to TIME] [--sku SKU]",
		Short: "Ledger entries in commit order, created in [from, to); header: " + strings.Join(ledgerHeader, ","),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			span, err := parseSpan(from, to)
			if err != nil {
				return err
			}
			return withExport(cmd.Context(), cfg.DatabaseURL, out, cmd.OutOrStdout(), func(s store.Store, w *csv.Writer) error {
				return exportLedger(cmd.Context(), s, w, sku, span)
			})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	cmd.Flags().StringVar(&out, "out", "", "file to write (default: standard output)")
	cmd.Flags().StringVar(&from, "from", "", "first time included: RFC 3339, or a UTC date YYYY-MM-DD (default: the beginning)")
	cmd.Flags().StringVar(&to, "to", "", "first time excluded: RFC 3339, or a UTC date YYYY-MM-DD (default: now)")
	cmd.Flags().StringVar(&sku, "sku", "", "only this SKU's entries")
	return cmd
}

// timeSpan is [from, to); a zero bound is open.
type timeSpan struct{ from, to time.Time }

func (s timeSpan) contains(t time.Time) bool {
	return (s.from.IsZero() || !t.Before(s.from)) && (s.to.IsZero() || t.Before(s.to))
}

func parseSpan(from, to string) (timeSpan, error) {
	var span timeSpan
	var err error
	if span.from, err = parseTimeFlag("from", from); err != nil {
		return span, err
	}
	if span.to, err = parseTimeFlag("to", to); err != nil {
		return span, err
	}
	if !span.from.IsZero() && !span.to.IsZero() && !span.from.Before(span.to) {
		return span, fmt.Errorf("--from %s is not before --to %s", from, to)
	}
	return span, nil
}

func parseTimeFlag(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("--%s %q: want RFC 3339 or YYYY-MM-DD", name, v)
}

// withExport opens the existing database (never creating one on a
// mistyped path) and the output, and flushes the CSV writer.
func withExport(ctx context.Context, databaseURL, path string, stdout io.Writer, fn func(store.Store, *csv.Writer) error) error {
	s, err := storeurl.OpenExisting(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	var file *os.File
	out := stdout
	if path != "" {
		if file, err = os.Create(path); err != nil {
			return err
		}
		defer file.Close()
		out = file
	}
	w := csv.NewWriter(out)
	if err := fn(s, w); err != nil {
		return err
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("write csv: %w", err)
	}
	if file != nil {
		return file.Sync()
	}
	return nil
}

func exportStock(ctx context.Context, s store.Store, w *csv.Writer) error {
	if err := w.Write(stockHeader); err != nil {
		return err
	}
	return s.AuditRead(ctx, func(r store.AuditReader) error {
		return r.PositionEach(ctx, func(p stockd.Position) error {
			c := p.Counters
			return w.Write([]string{p.SKU, p.Location, p.Pool, itoa(c.OnHand), itoa(c.Reserved), itoa(c.Committed), itoa(c.Quarantined),
				itoa(c.Available()), itoa(c.InTransit), itoa(c.Incoming)})
		})
	})
}

// exportLedger pages through the ledger in Seq order: the order of commit,
// so the file replays as the books were written.
func exportLedger(ctx context.Context, s store.Store, w *csv.Writer, sku string, span timeSpan) error {
	if err := w.Write(ledgerHeader); err != nil {
		return err
	}
	var after int64
	for {
		// The store filters the time range, so a page holds only entries
		// written out: the export reads what it writes and holds one page,
		// whatever the ledger's length outside the range.
		entries, err := s.LedgerList(ctx, store.LedgerListParams{SKU: sku, After: after, Limit: exportPageSize, From: span.from, To: span.to})
		if err != nil {
			return fmt.Errorf("read ledger after %d: %w", after, err)
		}
		for _, e := range entries {
			if !span.contains(e.CreatedAt) {
				// The store answered outside the range it was asked for.
				panic(fmt.Sprintf("export: ledger entry %d at %s outside [%s, %s)", e.Seq, e.CreatedAt, span.from, span.to))
			}
			if err := w.Write(ledgerRow(e)); err != nil {
				return err
			}
		}
		if len(entries) < exportPageSize {
			return nil
		}
		after = entries[len(entries)-1].Seq
	}
}

func ledgerRow(e stockd.LedgerEntry) []string {
	return []string{itoa(e.Seq), e.CreatedAt.UTC().Format(time.RFC3339Nano), e.BusinessType, e.BusinessID,
		e.Position.SKU, e.Position.Location, e.Position.Pool,
		itoa(e.Delta.OnHand), itoa(e.Delta.Reserved), itoa(e.Delta.Committed), itoa(e.Delta.Quarantined),
		itoa(e.After.OnHand), itoa(e.After.Reserved), itoa(e.After.Committed), itoa(e.After.Quarantined),
		e.ReservationID, e.Actor, e.Reason, e.Reference}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
