package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/store"
)

// importSubmittersMax is how many rows are in flight at once: enough for
// the engine to fill its batches, few enough to stay under its queue.
const importSubmittersMax = 64

// importProgressEvery is how often progress is printed.
const importProgressEvery = time.Second

// newImportCommand is `stockd import`: files from the system being
// replaced, applied through the engine as any request is, so that verify
// holds and every row is in the ledger.
func newImportCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import SKUs, opening stock, open reservations and physical counts from CSV files (checked whole before anything is written)",
	}
	cmd.AddCommand(
		newImportKindCommand("skus", "sku,name,unit", "SKUs (an existing SKU with the same name and unit is left as it is)", planSKUs),
		newImportKindCommand("stock", "sku,location,pool,quantity,reference", "opening balances, as receipts with their reference (empty: opening-balance)", planStock),
		newImportKindCommand("reservations", "key,sku,location,pool,quantity,status,expires_at,customer_id",
			"open holds (status pending, with their deadline) and paid, unshipped orders (status confirmed); rows sharing a key are one reservation", planReservations),
		newImportCountsCommand(),
		newImportDemandCommand(),
	)
	return cmd
}

// importPlan is a checked file: the commands to submit and the line of
// each.
type importPlan struct {
	what     string
	commands []stockd.Command
	lines    []int
}

// planFunc turns a file's rows into commands, checking each against the
// books as they stand; every problem is added to bad with its line.
type planFunc func(ctx context.Context, s store.Store, f csvFile, now time.Time, bad *rowErrors) (importPlan, error)

func newImportKindCommand(kind, header, short string, plan planFunc) *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   kind + " FILE.csv",
		Short: "Import " + short + "; header: " + header,
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			f, err := readCSVFile(args[0], strings.Split(header, ","))
			if err != nil {
				return err
			}
			return withMigratedStore(cmd.Context(), cfg.DatabaseURL, func(s store.Store) error {
				var bad rowErrors
				p, err := plan(cmd.Context(), s, f, time.Now(), &bad)
				if err != nil {
					return err
				}
				if err := bad.err(); err != nil {
					return err
				}
				return runImport(cmd.Context(), s, p, cmd.OutOrStdout(), cmd.ErrOrStderr())
			})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	return cmd
}

// importTally counts a run's outcomes.
type importTally struct {
	applied, replayed, done atomic.Int64
	// pruned counts rows an earlier run decided so long ago that their
	// answers are past the idempotency retention: not applied again.
	pruned  atomic.Int64
	mu      sync.Mutex
	refused rowErrors
}

// runImport submits the plan's commands through an engine of its own and
// reports progress on progress and the outcome on out. Rows were checked
// against the books beforehand; a row refused now lost a race with a
// request made meanwhile, and is reported with its line (rerun the file:
// the rows applied replay).
func runImport(ctx context.Context, s store.Store, p importPlan, out, progress io.Writer) error {
	e := engine.New(engine.Config{Store: s, Logger: slog.New(slog.NewTextHandler(progress, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	defer e.Close()
	var t importTally
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(importSubmittersMax, len(p.commands)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				t.submit(ctx, e, p, i)
			}
		}()
	}
	stopProgress := reportProgress(progress, p, &t)
	for i := range p.commands {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	stopProgress()
	fmt.Fprintf(out, "imported %d %s: %d applied, %d already there (replayed)", t.applied.Load()+t.replayed.Load(), p.what, t.applied.Load(), t.replayed.Load())
	if n := t.pruned.Load(); n > 0 {
		fmt.Fprintf(out, ", %d decided by a run older than the idempotency retention (not applied again; GET /v1/requests/KEY tells each outcome)", n)
	}
	fmt.Fprintln(out)
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("import interrupted after %d of %d rows (rerun the file: applied rows replay): %w", t.done.Load(), len(p.commands), err)
	}
	if err := t.refused.err(); err != nil {
		return fmt.Errorf("refused while importing: %w", err)
	}
	return nil
}

func (t *importTally) submit(ctx context.Context, e *engine.Engine, p importPlan, i int) {
	defer t.done.Add(1)
	res, err := e.Submit(ctx, p.commands[i])
	switch {
	case err != nil:
		t.mu.Lock()
		t.refused.add(p.lines[i], "%v", err)
		t.mu.Unlock()
	case res.Err != nil && res.Err.Code == stockd.CodeAnswerPruned:
		// The key is spent by an earlier run: the row was decided then
		// (applied, or refused and reported by that run).
		t.pruned.Add(1)
	case res.Err != nil:
		t.mu.Lock()
		t.refused.add(p.lines[i], "%s: %s", res.Err.Code, res.Err.Message)
		t.mu.Unlock()
	case res.Replayed:
		t.replayed.Add(1)
	default:
		t.applied.Add(1)
	}
}

// reportProgress prints rows done every importProgressEvery until the
// returned stop is called.
func reportProgress(w io.Writer, p importPlan, t *importTally) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(importProgressEvery)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fmt.Fprintf(w, "importing %s: %d of %d\n", p.what, t.done.Load(), len(p.commands))
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// rowCommand makes the command of a file's row: its idempotency key comes
// from the file's digest and the line, or from key when the file names
// one, so that a rerun replays.
func rowCommand(op stockd.Operation, kind string, f csvFile, line int, key string, fields ...string) stockd.Command {
	if key == "" {
		key = fmt.Sprintf("import:%s:%s:%d", kind, f.digest, line)
	}
	sum := sha256.Sum256([]byte(kind + "\x00" + strings.Join(fields, "\x00")))
	return stockd.Command{Op: op, IdempotencyKey: key, RequestHash: hex.EncodeToString(sum[:]), Actor: "import"}
}
