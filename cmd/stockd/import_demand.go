package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// demandHeader is the one header `stockd import demand` accepts.
const demandHeader = "sku,date,quantity"

// demandProgressEvery is how many rows pass between progress lines.
const demandProgressEvery = 10 * stockd.DemandHistoryRowsMax

// newImportDemandCommand is `stockd import demand`: past daily sales, for
// replenishment. Unlike the other imports it changes no stock, so it goes
// to the store (as POST /v1/demand-history does), not through the engine.
func newImportDemandCommand() *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   "demand FILE.csv",
		Short: "Import past daily demand for replenishment; header: " + demandHeader + " (date YYYY-MM-DD, a business date)",
		Long: "Checks every row of FILE.csv first (a date of the calendar, a quantity from 0 to 10^12, a SKU that\n" +
			"exists, each SKU and date once) and reports each bad row with its line number; only a good file is\n" +
			"written, " + strconv.Itoa(stockd.DemandHistoryRowsMax) + " rows at a time. A row replaces the one imported before for its SKU and\n" +
			"date (never the ledger's sales, which replenishment adds to it), so importing a file again changes\n" +
			"nothing. Progress goes to stderr.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			f, err := readCSVFile(args[0], strings.Split(demandHeader, ","))
			if err != nil {
				return err
			}
			return withMigratedStore(cmd.Context(), cfg.DatabaseURL, func(s store.Store) error {
				var bad rowErrors
				rows, err := planDemand(cmd.Context(), s, f, &bad)
				if err != nil {
					return err
				}
				if err := bad.err(); err != nil {
					return err
				}
				return runImportDemand(cmd.Context(), s, rows, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
			})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	return cmd
}

// planDemand checks every row; each problem goes to bad with its line.
func planDemand(ctx context.Context, s store.Store, f csvFile, bad *rowErrors) ([]stockd.DemandDay, error) {
	firstLine := map[[2]string]int{}
	known := map[string]bool{}
	rows := make([]stockd.DemandDay, 0, len(f.rows))
	for _, r := range f.rows {
		q, err := strconv.ParseInt(r.fields[2], 10, 64)
		if err != nil {
			bad.add(r.line, "quantity %q: want an integer from 0 to %d", r.fields[2], stockd.QuantityMax)
			continue
		}
		day := stockd.DemandDay{SKU: r.fields[0], Date: r.fields[1], Quantity: q}
		if verr := stockd.ValidDemandDay(day); verr != nil {
			bad.add(r.line, "%s", verr.Message)
			continue
		}
		k := [2]string{day.SKU, day.Date}
		if first, ok := firstLine[k]; ok {
			bad.add(r.line, "%s on %s again (first on line %d)", day.SKU, day.Date, first)
			continue
		}
		firstLine[k] = r.line
		if _, checked := known[day.SKU]; !checked {
			_, err := s.SKUGet(ctx, day.SKU)
			if err != nil && !errors.Is(err, stockd.ErrNotFound) {
				return nil, fmt.Errorf("import demand: %w", err)
			}
			known[day.SKU] = err == nil
		}
		if !known[day.SKU] {
			bad.add(r.line, "sku %q is unknown", day.SKU)
			continue
		}
		rows = append(rows, day)
	}
	return rows, nil
}

// runImportDemand writes checked rows, DemandHistoryRowsMax at a time.
func runImportDemand(ctx context.Context, s store.Store, rows []stockd.DemandDay, path string, out, progress io.Writer) error {
	for start := 0; start < len(rows); start += stockd.DemandHistoryRowsMax {
		chunk := rows[start:min(start+stockd.DemandHistoryRowsMax, len(rows))]
		if err := s.DemandHistoryPut(ctx, store.DemandHistoryPutParams{Rows: chunk, At: time.Now()}); err != nil {
			// Every row written so far is a good one, and writing them
			// again changes nothing: the same command finishes the job.
			return fmt.Errorf("import demand: after %d of %d rows (run it again to finish): %w", start, len(rows), err)
		}
		if done := start + len(chunk); done%demandProgressEvery == 0 || done == len(rows) {
			fmt.Fprintf(progress, "imported %d of %d rows (%d%%)\n", done, len(rows), done*100/len(rows))
		}
	}
	fmt.Fprintf(out, "imported %d rows of demand from %s\n", len(rows), path)
	return nil
}
