package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd/csvimport"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store"
)

// importProgressEvery is how often progress is printed.
const importProgressEvery = time.Second

// importShort says what each file holds.
var importShort = map[csvimport.Kind]string{
	csvimport.KindSKUs:  "SKUs (one that exists with the same name and unit is left as it is)",
	csvimport.KindStock: "opening balances, as receipts with their reference (empty: opening-balance:LOCATION:POOL)",
	csvimport.KindReservations: "open holds (status pending, with their deadline) and paid, unshipped orders (status confirmed); " +
		"rows sharing a key are one reservation",
	csvimport.KindDemand: "past daily demand for replenishment (date YYYY-MM-DD, a business date; a row replaces the one imported before)",
	csvimport.KindCounts: "a physical count, compared with on_hand as of counted_at; mismatches become discrepancies (exit 2), stock is not changed",
}

// newImportCommand is `stockd import`: files from the system being
// replaced, read, checked and applied by package csvimport, as
// POST /v1/imports/{kind} does, so a file imported either way replays the
// other way.
func newImportCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import SKUs, opening stock, open reservations, past demand and physical counts from CSV files (checked whole before anything is written)",
	}
	for _, kind := range csvimport.Kinds {
		cmd.AddCommand(newImportKindCommand(kind))
	}
	return cmd
}

func newImportKindCommand(kind csvimport.Kind) *cobra.Command {
	var cfg Config
	var asJSON bool
	cmd := &cobra.Command{
		Use:   string(kind) + " FILE.csv",
		Short: "Import " + importShort[kind] + "; header: " + kind.Header(),
		Long: "Checks every row of FILE.csv first and reports each bad row with its line number; only a good file is\n" +
			"written. Each row is applied under a key made of the file's digest and its line, so importing the same\n" +
			"file again (here or with POST /v1/imports/" + string(kind) + ") replays instead of applying twice. Progress goes to stderr.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			f, err := readImportFile(args[0], kind)
			if err != nil {
				return err
			}
			return withMigratedStore(cmd.Context(), cfg.DatabaseURL, func(s store.Store) error {
				return runImport(cmd.Context(), s, f, asJSON, cmd.OutOrStdout(), cmd.ErrOrStderr())
			})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the outcome as JSON (kind, digest, rows, applied, replayed, unchanged; count for a counts file)")
	return cmd
}

func readImportFile(path string, kind csvimport.Kind) (*csvimport.File, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	f, err := csvimport.Read(file, kind, csvimport.LimitsFile)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// runImport checks f against the books and applies it through an engine
// of its own.
func runImport(ctx context.Context, s store.Store, f *csvimport.File, asJSON bool, out, progress io.Writer) error {
	p, err := csvimport.Check(ctx, s, f, time.Now())
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(progress, &slog.HandlerOptions{Level: slog.LevelWarn}))
	e := engine.New(engine.Config{Store: s, Logger: logger})
	defer e.Close()
	var done, total atomic.Int64
	stop := reportProgress(progress, f.Kind, &done, &total)
	res, err := p.Apply(ctx, csvimport.Apply{
		Engine: e, Store: s, Counter: reconcile.New(reconcile.Config{Store: s, Logger: logger}),
		Progress: func(d, t int) { done.Store(int64(d)); total.Store(int64(t)) },
	})
	stop()
	if incomplete, ok := errors.AsType[*csvimport.IncompleteError](err); ok {
		res = incomplete.Result
	}
	if asJSON {
		if jerr := json.NewEncoder(out).Encode(res); jerr != nil {
			return errors.Join(err, jerr)
		}
	} else {
		fmt.Fprintf(out, "imported %d %s rows (file %s): %d applied, %d replayed, %d unchanged", res.Rows, res.Kind, res.Digest, res.Applied, res.Replayed, res.Unchanged)
		if res.Pruned > 0 {
			fmt.Fprintf(out, ", %d decided by a send older than the idempotency retention (not applied again; GET /v1/requests/KEY tells each outcome)", res.Pruned)
		}
		fmt.Fprintln(out)
	}
	if err != nil {
		return err
	}
	if res.Count != nil {
		if !asJSON {
			printReconcile(out, "count", *res.Count)
		}
		if !res.Count.Clean() {
			return errDifferences
		}
	}
	return nil
}

// reportProgress prints rows done every importProgressEvery until the
// returned stop is called, and the total then.
func reportProgress(w io.Writer, kind csvimport.Kind, done, total *atomic.Int64) (stop func()) {
	finished := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(importProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-finished:
				if t := total.Load(); t > 0 {
					fmt.Fprintf(w, "importing %s: %d of %d rows (%d%%)\n", kind, done.Load(), t, done.Load()*100/t)
				}
				return
			case <-tick.C:
				if t := total.Load(); t > 0 {
					fmt.Fprintf(w, "importing %s: %d of %d rows (%d%%)\n", kind, done.Load(), t, done.Load()*100/t)
				}
			}
		}
	}()
	return func() { close(finished); <-stopped }
}
