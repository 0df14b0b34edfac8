// Package engine turns commands into batched transactions. Requests queue;
// an applier takes whatever queued while the previous transaction was
// committing as the next batch (up to BatchSizeMax), applies it in one
// transaction through the storage seam, commits, and answers every caller.
package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Config configures an Engine. Zero values mean the documented default.
type Config struct {
	Store store.Store
	// BatchSizeMax caps commands per transaction. Defaults to stockd.BatchSizeMax.
	BatchSizeMax int
	// QueueLengthMax caps queued commands; beyond it Submit answers
	// overloaded at once. Defaults to 16384.
	QueueLengthMax int
	// QueuePerSKUMax caps queued reservations naming one SKU, so that one hot
	// SKU cannot fill the whole queue. Defaults to 8192.
	QueuePerSKUMax int
	// Appliers is how many batches may be in flight at once. Defaults to 1.
	Appliers int
	// BatchTimeout bounds one transaction, whatever its callers' deadlines
	// (batchContext says why). Defaults to 10 seconds.
	BatchTimeout time.Duration
	// OnHalt is called once, on its own goroutine, when the engine stops on
	// a broken invariant of the books (stockd.BrokenInvariant); serve
	// shuts down on it. May be nil.
	OnHalt func(error)
	// Now is the clock. Defaults to time.Now.
	Now func() time.Time
	// NewID makes reservation ids. Defaults to UUIDv7 strings.
	NewID  func() string
	Logger *slog.Logger
	// Metrics receives batch observations; may be nil.
	Metrics *Metrics
}

const (
	queueLengthDefault  = 16384
	queuePerSKUDefault  = 8192
	batchTimeoutDefault = 10 * time.Second
	// retriesMax bounds how often a batch is retried after a conflict the
	// database detected; each retry reads everything afresh.
	retriesMax = 8
)

type request struct {
	ctx    context.Context
	cmd    stockd.Command
	answer chan answer
	// short lists the lines known to be sold out when it was submitted.
	short []stockd.Shortfall
}

type answer struct {
	result stockd.Result
	err    error
}

// Engine applies commands in coalesced batches.
type Engine struct {
	cfg     Config
	queue   chan *request
	rejects chan *request
	soldOut *soldOut
	perSKU  *perSKU
	// plainSKUs spares batches on plain SKUs the bundle lookup.
	plainSKUs stockd.PlainSKUs
	// commitMu orders commit-then-learn across appliers: batches touching
	// one SKU commit in the order the database's row locks impose, and what
	// they teach about sold-out stock must be learned in that same order.
	commitMu sync.Mutex
	stop     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
	// halted is set once a batch broke an invariant of the books; from
	// then on nothing more is applied.
	halted   atomic.Bool
	haltOnce sync.Once
	health   writeHealth
}

// New returns a started engine. Close stops it after draining the queue.
func New(cfg Config) *Engine {
	if cfg.Store == nil {
		panic("engine: Config.Store is required")
	}
	if cfg.BatchSizeMax <= 0 {
		cfg.BatchSizeMax = stockd.BatchSizeMax
	}
	if cfg.QueueLengthMax <= 0 {
		cfg.QueueLengthMax = queueLengthDefault
	}
	if cfg.QueuePerSKUMax <= 0 {
		cfg.QueuePerSKUMax = queuePerSKUDefault
	}
	if cfg.Appliers <= 0 {
		cfg.Appliers = 1
	}
	if cfg.BatchTimeout <= 0 {
		cfg.BatchTimeout = batchTimeoutDefault
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.NewID == nil {
		cfg.NewID = func() string { return uuid.Must(uuid.NewV7()).String() }
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	e := &Engine{
		cfg:     cfg,
		queue:   make(chan *request, cfg.QueueLengthMax),
		rejects: make(chan *request, cfg.QueueLengthMax),
		soldOut: newSoldOut(),
		perSKU:  newPerSKU(cfg.QueuePerSKUMax),
		stop:    make(chan struct{}),
	}
	cfg.Metrics.watchQueue(e.Queued)
	for range cfg.Appliers {
		e.wg.Add(1)
		go e.run()
	}
	e.wg.Add(1)
	go e.runRejects()
	return e
}

// Close stops accepting batches, finishes the queued ones and returns.
func (e *Engine) Close() {
	e.once.Do(func() { close(e.stop) })
	e.wg.Wait()
}

// Submit normalizes cmd, queues it and waits for its result. Bad input is a
// result with an error and never reaches storage. err is non-nil only for
// failures that are not the caller's: storage unreachable, or ctx done.
func (e *Engine) Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	req, res, err := e.queue1(ctx, cmd)
	if req == nil {
		return res, err
	}
	return e.wait(ctx, req)
}

// SubmitAll is Submit of every command of cmds, queued one after another
// in their order: one applier takes queued commands in order, so a batch
// decides them in that order (the gate's persister needs its stream's
// order). Several appliers may still commit consecutive batches at once.
func (e *Engine) SubmitAll(ctx context.Context, cmds []stockd.Command) ([]stockd.Result, []error) {
	results, errs := make([]stockd.Result, len(cmds)), make([]error, len(cmds))
	reqs := make([]*request, len(cmds))
	for i, cmd := range cmds {
		reqs[i], results[i], errs[i] = e.queue1(ctx, cmd)
	}
	for i, req := range reqs {
		if req != nil {
			results[i], errs[i] = e.wait(ctx, req)
		}
	}
	return results, errs
}

// queue1 normalizes and queues cmd; a nil request means the answer is
// already known (bad input, halted, closed, overloaded).
func (e *Engine) queue1(ctx context.Context, cmd stockd.Command) (*request, stockd.Result, error) {
	if verr := cmd.Normalize(); verr != nil {
		return nil, stockd.Result{Err: verr}, nil
	}
	if e.halted.Load() {
		return nil, stockd.Result{}, stockd.ErrHalted
	}
	req := &request{ctx: ctx, cmd: cmd, answer: make(chan answer, 1)}
	select {
	case <-e.stop:
		return nil, stockd.Result{}, errors.New("engine: closed")
	default:
	}
	if r, ok := cmd.Op.(*stockd.Reserve); ok {
		req.short = e.soldOut.check(r.Lines, time.Now())
	}
	if !e.enqueue(req) {
		e.cfg.Metrics.overloaded()
		return nil, stockd.Result{Err: stockd.Errorf(stockd.CodeOverloaded, "too many requests queued, retry later")}, nil
	}
	return req, stockd.Result{}, nil
}

// wait returns req's answer, or ctx's error when ctx ends first.
func (e *Engine) wait(ctx context.Context, req *request) (stockd.Result, error) {
	select {
	case a := <-req.answer:
		return a.result, a.err
	case <-ctx.Done():
		// The batch may still apply it; the caller learns the outcome by
		// retrying with the same idempotency key.
		return stockd.Result{}, ctx.Err()
	}
}

// enqueue puts req on the sold-out path or in the batch queue, or reports
// that the queue (or the SKU's share of it) is full.
func (e *Engine) enqueue(req *request) bool {
	queue := e.queue
	if len(req.short) > 0 {
		queue = e.rejects
	} else if !e.perSKU.admit(req.cmd) {
		return false
	}
	select {
	case queue <- req:
		return true
	default:
		if queue == e.queue {
			e.perSKU.release(req.cmd)
		}
		return false
	}
}

// next waits for the first request on queue, then takes whatever else is
// already queued, up to BatchSizeMax. After Stop it drains the queue so no
// caller waits forever, and reports false once it is empty.
func (e *Engine) next(queue chan *request, batch []*request) ([]*request, bool) {
	var first *request
	select {
	case first = <-queue:
	case <-e.stop:
		select {
		case first = <-queue:
		default:
			return batch, false
		}
	}
	batch = append(batch[:0], first)
	for len(batch) < e.cfg.BatchSizeMax {
		select {
		case r := <-queue:
			batch = append(batch, r)
		default:
			return batch, true
		}
	}
	return batch, true
}

// Queued returns how many commands wait for a batch.
func (e *Engine) Queued() int { return len(e.queue) }

func (e *Engine) run() {
	defer e.wg.Done()
	batch := make([]*request, 0, e.cfg.BatchSizeMax)
	for {
		var ok bool
		if batch, ok = e.next(e.queue, batch); !ok {
			return
		}
		for _, r := range batch {
			e.perSKU.release(r.cmd)
		}
		e.contained(batch, e.applyRequests)
	}
}
