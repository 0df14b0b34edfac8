package engine

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/google/uuid"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// contained runs fn on a batch of requests (applying them, or answering
// them from sold-out knowledge). It is the last line that keeps a bug from
// taking the process down: a panic that escapes fn answers every caller
// still waiting with an incident, and the goroutine goes on with the next
// batch.
func (e *Engine) contained(batch []*request, fn func([]*request)) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		err := e.recovered(p, debug.Stack(), "applier")
		for _, r := range batch {
			// A caller already answered has its one buffered answer.
			select {
			case r.answer <- answer{err: err}:
			default:
			}
		}
	}()
	fn(batch)
}

// applyRequests drops requests whose caller already gave up, applies the
// rest and answers each.
func (e *Engine) applyRequests(batch []*request) {
	live := batch[:0:0]
	cmds := make([]stockd.Command, 0, len(batch))
	for _, r := range batch {
		if r.ctx.Err() != nil {
			r.answer <- answer{result: stockd.Result{Err: stockd.Errorf(stockd.CodeCancelled, "request cancelled before it was applied")}}
			continue
		}
		live = append(live, r)
		cmds = append(cmds, r.cmd)
	}
	if len(cmds) == 0 {
		return
	}
	ctx, cancel := e.batchContext()
	defer cancel()
	start := time.Now()
	answers := e.applyIsolated(ctx, cmds)
	e.cfg.Metrics.batch(len(cmds), time.Since(start), answers[0].err)
	for i, r := range live {
		r.answer <- answers[i]
	}
}

// batchContext bounds a formed batch by BatchTimeout alone, not by its
// callers' deadlines. Cutting a batch when its callers give up wasted its
// work: on a slow database (300 ms a round trip, a batch taking 3 s) the
// next batch formed from callers who had waited as long, was cut too, and
// nothing committed at all; finished, it commits, and the callers who gave
// up learn the outcome by retrying with their keys (docs/benchmarks.md,
// "Under database latency"). Callers gone before their batch formed are
// dropped unapplied.
func (e *Engine) batchContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), e.cfg.BatchTimeout)
}

// Apply applies cmds, already normalized, as one batch (split where a
// command fails on its own, see applyIsolated) within BatchTimeout. It
// returns the first failure that is not a command's result.
func (e *Engine) Apply(cmds []stockd.Command) ([]stockd.Result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), e.cfg.BatchTimeout)
	defer cancel()
	answers := e.applyIsolated(ctx, cmds)
	results := make([]stockd.Result, len(answers))
	for i, a := range answers {
		if a.err != nil {
			return nil, a.err
		}
		results[i] = a.result
	}
	return results, nil
}

// applyIsolated applies cmds as one batch and answers each, so that one
// command can never fail the others:
//   - a command whose decision panics (a bug its input reached) is
//     answered with an incident, and the others are applied again
//     without it;
//   - a batch whose write the database refuses (store.ErrRejected: a
//     value it cannot store) or whose writing panics is split in halves,
//     each applied on its own, until the one command at fault stands
//     alone and is answered with an incident;
//   - a broken invariant of the books halts the engine;
//   - a database that is down or slow fails the batch as a whole: splitting
//     would only multiply the load on it.
func (e *Engine) applyIsolated(ctx context.Context, cmds []stockd.Command) []answer {
	if len(cmds) > e.cfg.BatchSizeMax {
		panic(fmt.Sprintf("engine: batch of %d above the cap of %d", len(cmds), e.cfg.BatchSizeMax))
	}
	answers := make([]answer, len(cmds))
	e.applyPart(ctx, cmds, answers)
	return answers
}

func (e *Engine) applyPart(ctx context.Context, cmds []stockd.Command, answers []answer) {
	if e.halted.Load() {
		fill(answers, answer{err: stockd.ErrHalted})
		return
	}
	results, err := e.applyRetrying(ctx, cmds)
	e.health.observe(time.Now(), err)
	var dp *decisionPanic
	var h *halt
	switch {
	case err == nil:
		for i := range results {
			answers[i] = answer{result: results[i]}
		}
	case errors.As(err, &h):
		e.halt(h)
		fill(answers, answer{err: stockd.ErrHalted})
	case errors.As(err, &dp):
		answers[dp.index] = answer{err: e.incident(dp, dp.stack, cmds[dp.index:dp.index+1])}
		rest := make([]stockd.Command, 0, len(cmds)-1)
		rest = append(append(rest, cmds[:dp.index]...), cmds[dp.index+1:]...)
		if len(rest) == 0 {
			return
		}
		e.cfg.Metrics.retried(RetryCausePanic)
		restAnswers := make([]answer, len(rest))
		e.applyPart(ctx, rest, restAnswers)
		copy(answers[:dp.index], restAnswers[:dp.index])
		copy(answers[dp.index+1:], restAnswers[dp.index:])
	case splittable(err) && len(cmds) > 1:
		e.cfg.Metrics.split()
		e.cfg.Metrics.retried(RetryCauseSplit)
		half := len(cmds) / 2
		e.applyPart(ctx, cmds[:half], answers[:half])
		e.applyPart(ctx, cmds[half:], answers[half:])
	case splittable(err):
		if errors.Is(err, store.ErrRejected) {
			e.cfg.Metrics.refused()
		}
		var stack []byte
		var wp *writePanic
		if errors.As(err, &wp) {
			stack = wp.stack
		}
		answers[0] = answer{err: e.incident(err, stack, cmds)}
	default:
		e.cfg.Logger.Error("batch failed", "commands", len(cmds), "err", err)
		fill(answers, answer{err: fmt.Errorf("apply batch: %w", err)})
	}
}

func fill(answers []answer, a answer) {
	for i := range answers {
		answers[i] = a
	}
}

// splittable reports whether err may belong to one command of the batch
// rather than to the database.
func splittable(err error) bool {
	var wp *writePanic
	return errors.Is(err, store.ErrRejected) || errors.As(err, &wp)
}

// applyRetrying applies cmds in one transaction, retrying the whole batch
// after a conflict the database detected, while ctx allows.
func (e *Engine) applyRetrying(ctx context.Context, cmds []stockd.Command) ([]stockd.Result, error) {
	var err error
	for attempt := 1; attempt <= retriesMax; attempt++ {
		var results []stockd.Result
		results, err = e.applyOnce(ctx, cmds)
		if err == nil || !errors.Is(err, store.ErrRetry) || ctx.Err() != nil {
			return results, err
		}
		e.cfg.Metrics.retried(RetryCauseOf(err))
		time.Sleep(time.Duration(attempt*attempt) * time.Millisecond)
	}
	return nil, err
}

// applyOnce runs one attempt of a batch: lock, read, decide, write, commit.
func (e *Engine) applyOnce(ctx context.Context, cmds []stockd.Command) (results []stockd.Result, err error) {
	tx, err := e.cfg.Store.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("begin: %w", err)
	}
	defer func() {
		if rerr := tx.Rollback(ctx); rerr != nil && err == nil {
			err = fmt.Errorf("rollback: %w", rerr)
		}
	}()
	readStart := time.Now()
	state, err := e.read(ctx, tx, cmds)
	if err != nil {
		return nil, err
	}
	e.cfg.Metrics.locked(time.Since(readStart))
	results = make([]stockd.Result, len(cmds))
	for i := range cmds {
		if err := e.decide(state, cmds, i, &results[i]); err != nil {
			return nil, err
		}
	}
	if err := e.write(ctx, tx, state); err != nil {
		return nil, err
	}
	e.commitMu.Lock()
	defer e.commitMu.Unlock()
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("commit: %w", err)
	}
	e.soldOut.learn(cmds, state.Positions, state.ServedElsewhere, time.Now())
	return results, nil
}

// decide decides cmds[i] against state, turning a panic into an error that
// names the command.
func (e *Engine) decide(state *stockd.BatchState, cmds []stockd.Command, i int, out *stockd.Result) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if bi, ok := p.(stockd.BrokenInvariant); ok {
				err = &halt{cause: bi, stack: debug.Stack()}
				return
			}
			err = &decisionPanic{index: i, value: p, stack: debug.Stack()}
		}
	}()
	*out = state.Apply(cmds[i : i+1])[0]
	return nil
}

// write hands the batch's writes to storage, turning a panic on the way
// into an error.
func (e *Engine) write(ctx context.Context, tx store.Tx, state *stockd.BatchState) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if bi, ok := p.(stockd.BrokenInvariant); ok {
				err = &halt{cause: bi, stack: debug.Stack()}
				return
			}
			err = &writePanic{value: p, stack: debug.Stack()}
		}
	}()
	if err := tx.Write(ctx, state.Writes()); err != nil {
		return fmt.Errorf("write: %w", err)
	}
	return nil
}

// recovered turns a panic caught at the applier's top into the error its
// callers get, halting the engine on a broken invariant.
func (e *Engine) recovered(p any, stack []byte, where string) error {
	if bi, ok := p.(stockd.BrokenInvariant); ok {
		e.halt(&halt{cause: bi, stack: stack})
		return stockd.ErrHalted
	}
	return e.incident(fmt.Errorf("%s panicked: %v", where, p), stack, nil)
}

// incident logs a failure of ours with its stack under a new id and
// returns what the callers get: that id.
func (e *Engine) incident(err error, stack []byte, cmds []stockd.Command) *stockd.Incident {
	id := uuid.NewString()
	kinds := make([]string, len(cmds))
	for i := range cmds {
		kinds[i] = string(cmds[i].Kind())
	}
	e.cfg.Metrics.incidentRecorded()
	e.cfg.Logger.Error("command failed on a bug or on data the database refused; the others of its batch were applied",
		"incident", id, "kinds", kinds, "err", err, "stack", string(stack))
	return &stockd.Incident{ID: id, Err: err}
}

// halt stops the engine for good: the books would break, and writing
// anything more could only spread the damage. Every caller from now on gets
// stockd.ErrHalted, health says so, and OnHalt tells serve to stop.
func (e *Engine) halt(h *halt) {
	e.haltOnce.Do(func() {
		e.halted.Store(true)
		e.cfg.Metrics.haltedSet()
		e.cfg.Logger.Error("engine halted: a batch would break an invariant of the books; nothing more is applied until stockd is restarted",
			"err", h.cause, "stack", string(h.stack))
		if e.cfg.OnHalt != nil {
			go e.cfg.OnHalt(fmt.Errorf("%w: %w", stockd.ErrHalted, h.cause))
		}
	})
}

// Halted reports whether the engine stopped on a broken invariant.
func (e *Engine) Halted() bool { return e.halted.Load() }

// decisionPanic is a panic while deciding the command at index.
type decisionPanic struct {
	index int
	value any
	stack []byte
}

func (p *decisionPanic) Error() string {
	return fmt.Sprintf("deciding command %d panicked: %v", p.index, p.value)
}

// writePanic is a panic while handing a batch to storage.
type writePanic struct {
	value any
	stack []byte
}

func (p *writePanic) Error() string { return fmt.Sprintf("writing the batch panicked: %v", p.value) }

// halt is a broken invariant of the books.
type halt struct {
	cause stockd.BrokenInvariant
	stack []byte
}

func (h *halt) Error() string { return h.cause.Error() }
