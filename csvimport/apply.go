package csvimport

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store"
)

const (
	// submittersMax is how many rows are in flight at once: one full batch
	// of the engine (stockd.BatchSizeMax), so that a commit carries as many
	// rows as it may, and a thirtieth of its queue, so that other callers
	// are not crowded out. 64 in flight made batches of 32 on PostgreSQL's
	// two appliers and took 9.1 s for 10,000 receipts where 512 take 2.8 s
	// (docs/benchmarks.md, "Imports over HTTP").
	submittersMax = stockd.BatchSizeMax
	// overloadedRetriesMax bounds how often one row answered overloaded
	// (the engine's queue full of other callers' commands) is sent again,
	// overloadedWait apart times the attempt, before it counts as refused.
	overloadedRetriesMax = 5
	overloadedWait       = 20 * time.Millisecond
)

// Submitter applies one command; *engine.Engine is one.
type Submitter interface {
	Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error)
}

// Counter compares physical counts; *reconcile.Reconciler is one.
type Counter interface {
	Count(ctx context.Context, rows []stockd.CountRow) (reconcile.Result, error)
}

// Apply is what applying a plan needs. Engine is required for skus, stock
// and reservations, Store for demand, Counter for counts.
type Apply struct {
	Engine  Submitter
	Store   store.Store
	Counter Counter
	// Actor and KeyID mark the commands: the API key that sent the file,
	// or Actor ("import") from the command line.
	Actor, KeyID string
	// Now stamps demand rows. Defaults to time.Now.
	Now func() time.Time
	// Progress, when set, is told the rows done after each one, from
	// several goroutines.
	Progress func(done, total int)
}

// Result is what an import did.
type Result struct {
	Kind   Kind   `json:"kind"`
	Digest string `json:"digest"`
	// Rows is how many data rows the file has.
	Rows int `json:"rows"`
	// Applied counts what this import wrote: commands applied, demand rows
	// written, counted rows compared.
	Applied int `json:"applied"`
	// Replayed counts rows applied by an earlier send of the file.
	Replayed int `json:"replayed"`
	// Pruned counts rows an earlier send decided so long ago that their
	// answers are past the idempotency retention: not applied again
	// (GET /v1/requests/{key} tells each outcome).
	Pruned int `json:"pruned"`
	// Unchanged counts rows with nothing to do (a SKU that exists as the
	// row says).
	Unchanged int `json:"unchanged"`
	// Count is the comparison of a counts file.
	Count *reconcile.Result `json:"count,omitempty"`
}

// IncompleteError is an import some of whose rows the books refused while
// it was applied: requests that came between the check and the apply (a
// SKU created, stock reserved, a reference booked). The rest was applied;
// sending the file again replays it and tries the refused rows again.
type IncompleteError struct {
	Result Result
	// Refused are the first LineErrorsMax refused lines, in file order,
	// each with the code and message the books answered.
	Refused []LineError
	// Count is how many rows were refused.
	Count int
}

func (e *IncompleteError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d rows refused while importing (%d applied, %d replayed; send the file again: applied rows replay):",
		e.Count, e.Result.Rows, e.Result.Applied, e.Result.Replayed)
	for _, l := range e.Refused {
		fmt.Fprintf(&b, "\nline %d: %s", l.Line, l.Detail)
	}
	if e.Count > len(e.Refused) {
		fmt.Fprintf(&b, "\n… and %d more", e.Count-len(e.Refused))
	}
	return b.String()
}

// Apply sends the plan. It returns an *IncompleteError when the books
// refused rows; any other error (the database down, ctx done) stopped the
// import part way, and sending the file again finishes it.
func (p *Plan) Apply(ctx context.Context, a Apply) (Result, error) {
	if a.Now == nil {
		a.Now = time.Now
	}
	res := Result{Kind: p.file.Kind, Digest: p.file.Digest, Rows: p.file.Rows(), Unchanged: p.unchanged}
	switch p.file.Kind {
	case KindDemand:
		return p.applyDemand(ctx, a, res)
	case KindCounts:
		return p.applyCounts(ctx, a, res)
	}
	return p.applyCommands(ctx, a, res)
}

// tally counts the outcomes of the rows sent.
type tally struct {
	applied, replayed, pruned, done atomic.Int64
	mu                              sync.Mutex
	refused                         lineErrors
	// failed is the first error that is not a row's: the import stops.
	failed error
}

func (p *Plan) applyCommands(ctx context.Context, a Apply, res Result) (Result, error) {
	if a.Engine == nil {
		panic("csvimport: Apply.Engine is required for " + string(p.file.Kind))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var t tally
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(submittersMax, len(p.commands)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := t.submit(ctx, a, p, i); err != nil {
					cancel()
				}
				if a.Progress != nil {
					a.Progress(int(t.done.Load()), len(p.commands))
				}
			}
		}()
	}
send:
	for i := range p.commands {
		select {
		case next <- i:
		case <-ctx.Done():
			break send
		}
	}
	close(next)
	wg.Wait()
	res.Applied, res.Replayed, res.Pruned = int(t.applied.Load()), int(t.replayed.Load()), int(t.pruned.Load())
	switch {
	case t.failed != nil:
		return res, fmt.Errorf("import %s stopped after %d of %d rows (send the file again: applied rows replay): %w", p.file.Kind, t.done.Load(), len(p.commands), t.failed)
	case ctx.Err() != nil:
		return res, fmt.Errorf("import %s stopped after %d of %d rows (send the file again: applied rows replay): %w", p.file.Kind, t.done.Load(), len(p.commands), context.Cause(ctx))
	case t.refused.count > 0:
		return res, &IncompleteError{Result: res, Refused: t.refused.list(), Count: t.refused.count}
	}
	return res, nil
}

// submit sends one row, again while the engine answers overloaded. It
// returns an error that is not the row's, which stops the import.
func (t *tally) submit(ctx context.Context, a Apply, p *Plan, i int) error {
	defer t.done.Add(1)
	cmd := p.commands[i]
	if a.Actor != "" {
		cmd.Actor = a.Actor
	}
	cmd.KeyID = a.KeyID
	var res stockd.Result
	var err error
	for attempt := 1; ; attempt++ {
		res, err = a.Engine.Submit(ctx, cmd)
		if err != nil || res.Err == nil || res.Err.Code != stockd.CodeOverloaded || attempt > overloadedRetriesMax {
			break
		}
		select {
		case <-time.After(time.Duration(attempt) * overloadedWait):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err == nil && res.Err != nil && res.Err.Code == stockd.CodeCancelled && ctx.Err() != nil {
		// The engine dropped the row because the import's deadline passed
		// (or it stopped) before its batch formed: not the row's fault.
		return ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case err != nil:
		if t.failed == nil && !errors.Is(err, context.Canceled) {
			t.failed = err
		}
		return err
	case res.Err != nil && res.Err.Code == stockd.CodeAnswerPruned:
		// The key is spent by an earlier send: the row was decided then
		// (applied, or refused and reported by that send).
		t.pruned.Add(1)
	case res.Err != nil:
		t.refused.add(p.lines[i], "%s: %s", res.Err.Code, res.Err.Message)
	case res.Replayed:
		t.replayed.Add(1)
	default:
		t.applied.Add(1)
	}
	return nil
}

// applyDemand writes the checked rows, stockd.DemandHistoryRowsMax at a
// time. It goes to the store, as POST /v1/demand-history does, not through
// the engine: it changes no stock, and a row replaces the one imported
// before for its SKU and date, so writing a file again changes nothing.
func (p *Plan) applyDemand(ctx context.Context, a Apply, res Result) (Result, error) {
	if a.Store == nil {
		panic("csvimport: Apply.Store is required for demand")
	}
	for chunk := range slices.Chunk(p.demand, stockd.DemandHistoryRowsMax) {
		if err := a.Store.DemandHistoryPut(ctx, store.DemandHistoryPutParams{Rows: chunk, At: a.Now()}); err != nil {
			// Every row written so far is a good one, and writing them
			// again changes nothing: the same file finishes the job.
			return res, fmt.Errorf("import demand stopped after %d of %d rows (send the file again to finish): %w", res.Applied, len(p.demand), err)
		}
		res.Applied += len(chunk)
		if a.Progress != nil {
			a.Progress(res.Applied, len(p.demand))
		}
	}
	return res, nil
}

// applyCounts compares the counted rows with the ledger,
// stockd.CountRowsMax at a time (one reconciliation run each). A count
// changes no stock: comparing it again refreshes the same discrepancies.
func (p *Plan) applyCounts(ctx context.Context, a Apply, res Result) (Result, error) {
	if a.Counter == nil {
		panic("csvimport: Apply.Counter is required for counts")
	}
	res.Count = &reconcile.Result{}
	for start := 0; start < len(p.counts); start += stockd.CountRowsMax {
		end := min(start+stockd.CountRowsMax, len(p.counts))
		part, err := a.Counter.Count(ctx, p.counts[start:end])
		if err != nil {
			// A refusal (*stockd.Error) is not the file's either: every row
			// was checked, and stockd never deletes the SKUs the check saw.
			return res, fmt.Errorf("import counts stopped after %d of %d rows (send the file again to finish): %w", start, len(p.counts), err)
		}
		res.Count.Runs = append(res.Count.Runs, part.Runs...)
		res.Count.Findings = append(res.Count.Findings, part.Findings...)
		res.Applied = end
		if a.Progress != nil {
			a.Progress(end, len(p.counts))
		}
	}
	return res, nil
}
