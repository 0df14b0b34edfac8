package expiry

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Pruner is the expiry worker's sibling for idempotency answers: past the
// retention it cuts each stored answer down to its outcome (applied,
// pending, or refused with its code), in bounded batches with a pause
// between them, on a goroutine of its own. Keys are never deleted: the
// books name them (a reservation's key, a receipt's business id), so a
// late retry finds its key spent and is answered answer_pruned instead of
// being applied twice.
type Pruner struct {
	cfg    PrunerConfig
	pruned prometheus.Counter
	stop   context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// PruneStore is what the pruner needs of the store.
type PruneStore interface {
	IdempotencyPrune(ctx context.Context, p *store.IdempotencyPruneParams) (int, error)
}

// PrunerConfig configures a Pruner. Zero values mean the documented
// default, except Retention, which is required.
type PrunerConfig struct {
	Store PruneStore
	// Retention is how long an answer is kept whole: between
	// stockd.IdempotencyRetentionMin and stockd.IdempotencyRetentionMax.
	// A server that keeps every answer runs no pruner.
	Retention time.Duration
	// Interval between passes. Defaults to 1 hour.
	Interval time.Duration
	// BatchSize bounds the answers pruned in one transaction. Defaults to,
	// and may not pass, stockd.IdempotencyPruneBatchMax (1000).
	BatchSize int
	// BatchPause is the least wait between two batches of a pass, so that
	// the engine's batches get the writer (SQLite) and the disk between
	// them; the wait is at least as long as the batch before it took, so
	// pruning never holds more than half of the writer's time. Defaults
	// to 100 milliseconds.
	BatchPause time.Duration
	// BatchesPerPassMax bounds one pass; a backlog left over waits for the
	// next. Defaults to 1000 (a million answers an hour).
	BatchesPerPassMax int
	// BatchTimeout bounds one batch's transaction. Defaults to 30 seconds.
	BatchTimeout time.Duration
	// Now is the clock. Defaults to time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Registerer receives stockd_idempotency_answers_pruned_total; may be
	// nil.
	Registerer prometheus.Registerer
	// OnPass, if set, is called after each pass of the running loop with
	// what RunOnce returned: tests wait on it instead of sleeping.
	OnPass func(pruned int, err error)
}

const (
	pruneIntervalDefault          = time.Hour
	pruneBatchPauseDefault        = 100 * time.Millisecond
	pruneBatchesPerPassMaxDefault = 1000
	pruneBatchTimeoutDefault      = 30 * time.Second
)

// NewPruner returns a pruner; Start runs it. A Retention out of bounds is
// a bug of the caller, which validates the operator's flag first.
func NewPruner(cfg PrunerConfig) *Pruner {
	if cfg.Store == nil {
		panic("expiry: PrunerConfig.Store is required")
	}
	if cfg.Retention < stockd.IdempotencyRetentionMin || cfg.Retention > stockd.IdempotencyRetentionMax {
		panic(fmt.Sprintf("expiry: retention %v out of bounds %v to %v", cfg.Retention, stockd.IdempotencyRetentionMin, stockd.IdempotencyRetentionMax))
	}
	if cfg.BatchSize < 0 || cfg.BatchSize > stockd.IdempotencyPruneBatchMax {
		panic(fmt.Sprintf("expiry: prune batch size %d above %d", cfg.BatchSize, stockd.IdempotencyPruneBatchMax))
	}
	if cfg.Interval <= 0 {
		cfg.Interval = pruneIntervalDefault
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = stockd.IdempotencyPruneBatchMax
	}
	if cfg.BatchPause <= 0 {
		cfg.BatchPause = pruneBatchPauseDefault
	}
	if cfg.BatchesPerPassMax <= 0 {
		cfg.BatchesPerPassMax = pruneBatchesPerPassMaxDefault
	}
	if cfg.BatchTimeout <= 0 {
		cfg.BatchTimeout = pruneBatchTimeoutDefault
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	p := &Pruner{
		cfg: cfg,
		pruned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_idempotency_answers_pruned_total",
			Help: "Idempotency answers cut down to their outcome past the retention.",
		}),
		done: make(chan struct{}),
	}
	if cfg.Registerer != nil {
		cfg.Registerer.MustRegister(p.pruned)
	}
	return p
}

// Start runs a pass now and then every Interval until Stop.
func (p *Pruner) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	p.stop = cancel
	go func() {
		defer close(p.done)
		ticker := time.NewTicker(p.cfg.Interval)
		defer ticker.Stop()
		for {
			n, err := p.RunOnce(ctx)
			if err != nil && ctx.Err() == nil {
				p.cfg.Logger.Error("pruning idempotency answers failed", "err", err, "pruned", n)
			} else if n > 0 {
				p.cfg.Logger.Info("pruned idempotency answers past the retention", "pruned", n, "retention", p.cfg.Retention)
			}
			if p.cfg.OnPass != nil {
				p.cfg.OnPass(n, err)
			}
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
			}
		}
	}()
}

// Stop ends the loop, cutting a pass short between two batches, and waits
// for it. Only after Start.
func (p *Pruner) Stop() {
	p.once.Do(p.stop)
	<-p.done
}

// RunOnce prunes the answers created more than Retention before now, in
// batches of BatchSize with BatchPause between them, until a batch comes
// back short or BatchesPerPassMax batches ran, and returns how many it
// pruned.
func (p *Pruner) RunOnce(ctx context.Context) (int, error) {
	now := p.cfg.Now().UTC()
	params := store.IdempotencyPruneParams{CreatedBefore: now.Add(-p.cfg.Retention), Limit: p.cfg.BatchSize, Now: now}
	total := 0
	var took time.Duration
	for batch := range p.cfg.BatchesPerPassMax {
		if batch > 0 {
			pause := time.NewTimer(max(p.cfg.BatchPause, took))
			select {
			case <-ctx.Done():
				pause.Stop()
				return total, ctx.Err()
			case <-pause.C:
			}
		}
		start := time.Now()
		n, err := p.batch(ctx, &params)
		took = time.Since(start)
		total += n
		p.pruned.Add(float64(n))
		if err != nil {
			return total, err
		}
		if n < params.Limit {
			break
		}
	}
	return total, nil
}

func (p *Pruner) batch(ctx context.Context, params *store.IdempotencyPruneParams) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, p.cfg.BatchTimeout)
	defer cancel()
	n, err := p.cfg.Store.IdempotencyPrune(ctx, params)
	if err != nil {
		return 0, fmt.Errorf("prune idempotency answers: %w", err)
	}
	return n, nil
}
