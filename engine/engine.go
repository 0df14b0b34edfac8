// Package engine turns commands into batched transactions. Each applier has
// its own queue, and a command queues at the applier its routing key
// (routeKey: the smallest SKU it touches) hashes to, so that every command
// on one SKU is decided by one applier in the order it queued. An applier
// takes whatever queued while its previous transaction was committing as
// the next batch (up to BatchSizeMax), applies it in one transaction
// through the storage seam, commits, and answers every caller.
package engine

import (
	"context"
	"errors"
	"log/slog"
	"slices"
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
	// Appliers is how many batches may be in flight at once, each applier
	// with its own queue (route). Defaults to 1.
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
	// route is the index of the applier whose queue the command takes.
	route int
}

type answer struct {
	result stockd.Result
	err    error
}

// Engine applies commands in coalesced batches.
type Engine struct {
	cfg Config
	// queues holds one queue per applier, each with room for
	// QueueLengthMax so that a send never blocks: queued, counted across
	// all of them, is what the cap bounds.
	queues  []chan *request
	queued  atomic.Int64
	rejects chan *request
	soldOut *soldOut
	perSKU  *perSKU
	// plainSKUs spares batches on plain SKUs the bundle lookup.
	plainSKUs stockd.PlainSKUs
	// commitMu orders commit-then-learn across appliers: batches touching
	// one SKU commit in the order the database's row locks impose, and what
	// they teach about sold-out stock must be learned in that same order.
	commitMu sync.Mutex
	// stop closes on Close: no more submissions, and the sold-out path
	// drains. drain closes once it has (it may hand requests back to the
	// appliers' queues): the appliers then drain their queues and return.
	stop      chan struct{}
	drain     chan struct{}
	wg        sync.WaitGroup
	rejectsWG sync.WaitGroup
	once      sync.Once
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
		queues:  make([]chan *request, cfg.Appliers),
		rejects: make(chan *request, cfg.QueueLengthMax),
		soldOut: newSoldOut(),
		perSKU:  newPerSKU(cfg.QueuePerSKUMax),
		stop:    make(chan struct{}),
		drain:   make(chan struct{}),
	}
	cfg.Metrics.watchQueue(e.Queued)
	for i := range e.queues {
		e.queues[i] = make(chan *request, cfg.QueueLengthMax)
		e.wg.Add(1)
		go e.run(e.queues[i])
	}
	e.rejectsWG.Add(1)
	go e.runRejects()
	return e
}

// Close stops accepting batches, finishes the queued ones and returns.
func (e *Engine) Close() {
	e.once.Do(func() {
		close(e.stop)
		e.rejectsWG.Wait()
		close(e.drain)
	})
	e.wg.Wait()
}

// Submit normalizes cmd, queues it and waits for its result. Bad input is a
// result with an error and never reaches storage. err is non-nil only for
// failures that are not the caller's: storage unreachable, or ctx done.
func (e *Engine) Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	req, res, err := e.queue1(ctx, cmd, -1)
	if req == nil {
		return res, err
	}
	return e.wait(ctx, req)
}

// SubmitAll is Submit of every command of cmds, queued one after another
// in their order on one applier's queue (the first command's route), so
// that they are decided in their order even where they name different
// SKUs: the gate's persister needs its stream's order, and a stream's
// order orders an order of SKUs x and y before a later one of y alone,
// which routing each on its own would not.
func (e *Engine) SubmitAll(ctx context.Context, cmds []stockd.Command) ([]stockd.Result, []error) {
	results, errs := make([]stockd.Result, len(cmds)), make([]error, len(cmds))
	reqs := make([]*request, len(cmds))
	route := -1
	for i, cmd := range cmds {
		if reqs[i], results[i], errs[i] = e.queue1(ctx, cmd, route); reqs[i] != nil {
			route = reqs[i].route
		}
	}
	for i, req := range reqs {
		if req != nil {
			results[i], errs[i] = e.wait(ctx, req)
		}
	}
	return results, errs
}

// queue1 normalizes and queues cmd on the queue of applier route, or of
// the applier its routing key picks when route is -1; a nil request means
// the answer is already known (bad input, halted, closed, overloaded).
func (e *Engine) queue1(ctx context.Context, cmd stockd.Command, route int) (*request, stockd.Result, error) {
	if verr := cmd.Normalize(); verr != nil {
		return nil, stockd.Result{Err: verr}, nil
	}
	if e.halted.Load() {
		return nil, stockd.Result{}, stockd.ErrHalted
	}
	if route < 0 {
		route = e.route(&cmd)
	}
	req := &request{ctx: ctx, cmd: cmd, answer: make(chan answer, 1), route: route}
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

// enqueue puts req on the sold-out path or in its applier's queue, or
// reports that the queues (or the SKU's share of them) are full.
func (e *Engine) enqueue(req *request) bool {
	if len(req.short) > 0 {
		select {
		case e.rejects <- req:
			return true
		default:
			return false
		}
	}
	if !e.perSKU.admit(req.cmd) {
		return false
	}
	if e.queued.Add(1) > int64(e.cfg.QueueLengthMax) {
		e.queued.Add(-1)
		e.perSKU.release(req.cmd)
		return false
	}
	select {
	case e.queues[req.route] <- req:
		return true
	default:
		panic("engine: an applier's queue is full below the cap on all of them")
	}
}

// route returns the applier whose queue cmd takes: the one its routing key
// hashes to. Every command on one SKU (and every transition of one
// reservation) then queues at one applier, which decides them in their
// order, in full batches, without waiting on another applier's row locks.
func (e *Engine) route(cmd *stockd.Command) int {
	if len(e.queues) == 1 {
		return 0
	}
	var t stockd.Touches
	cmd.Touches(&t)
	return int(fnv1a(routeKey(&t)) % uint64(len(e.queues)))
}

// routeKey is what a command is routed by: the smallest SKU it touches (an
// order of several SKUs goes where its first SKU's commands go, and is
// still one command in one batch, its locks taken in the store's sorted
// order), else the smallest reservation it transitions (a transition names
// its reservation, whose positions only the transaction reads), else ""
// (documents and settings alone, all on one applier).
func routeKey(t *stockd.Touches) string {
	switch {
	case len(t.SKUs) > 0:
		return slices.Min(t.SKUs)
	case len(t.ReservationIDs) > 0:
		return slices.Min(t.ReservationIDs)
	default:
		return ""
	}
}

// fnv1a is the 64-bit FNV-1a hash of s: stable across processes and
// releases, so a routing is reproducible.
func fnv1a(s string) uint64 {
	const offset64, prime64 = 14695981039346656037, 1099511628211
	h := uint64(offset64)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= prime64
	}
	return h
}

// next waits for the first request on queue, then takes whatever else is
// already queued, up to BatchSizeMax. Once stop closes it drains the queue
// so no caller waits forever, and reports false once it is empty.
func (e *Engine) next(queue chan *request, stop chan struct{}, batch []*request) ([]*request, bool) {
	var first *request
	select {
	case first = <-queue:
	case <-stop:
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

// Queued returns how many commands wait for a batch, on every applier.
func (e *Engine) Queued() int { return int(e.queued.Load()) }

// run is one applier: it applies the batches of its own queue, one after
// another.
func (e *Engine) run(queue chan *request) {
	defer e.wg.Done()
	batch := make([]*request, 0, e.cfg.BatchSizeMax)
	for {
		var ok bool
		if batch, ok = e.next(queue, e.drain, batch); !ok {
			return
		}
		e.queued.Add(-int64(len(batch)))
		for _, r := range batch {
			e.perSKU.release(r.cmd)
		}
		e.contained(batch, e.applyRequests)
	}
}
