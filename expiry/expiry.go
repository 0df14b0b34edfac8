// Package expiry runs the worker that releases pending reservations past
// their deadline, and closes campaign pools past their end (campaign.go). It finds due reservations in bounded batches and submits
// expire commands through the engine, where a confirm racing the expiry
// meets it under the same lock: exactly one of them wins.
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

// Submitter applies a command (the engine).
type Submitter interface {
	Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error)
}

// Config configures a Worker. Zero values mean the documented default.
type Config struct {
	Store  store.Store
	Engine Submitter
	// Interval between passes. Defaults to 1 second.
	Interval time.Duration
	// BatchSizeMax bounds the reservations expired per pass. Defaults to 500.
	BatchSizeMax int
	// PassTimeout bounds one pass. Defaults to 30 seconds.
	PassTimeout time.Duration
	// Now is the clock. Defaults to time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Registerer receives the expiry metrics; may be nil.
	Registerer prometheus.Registerer
}

const (
	intervalDefault     = time.Second
	batchSizeMaxDefault = 500
	passTimeoutDefault  = 30 * time.Second
	// catchUpPassesMax bounds back-to-back passes while a backlog remains,
	// so one tick never runs unbounded.
	catchUpPassesMax = 20
)

// Worker expires due reservations.
type Worker struct {
	cfg     Config
	lag     prometheus.Histogram
	expired prometheus.Counter
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
}

// New returns a worker; Start runs it.
func New(cfg Config) *Worker {
	if cfg.Store == nil || cfg.Engine == nil {
		panic("expiry: Config.Store and Config.Engine are required")
	}
	if cfg.Interval <= 0 {
		cfg.Interval = intervalDefault
	}
	if cfg.BatchSizeMax <= 0 {
		cfg.BatchSizeMax = batchSizeMaxDefault
	}
	if cfg.PassTimeout <= 0 {
		cfg.PassTimeout = passTimeoutDefault
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	w := &Worker{
		cfg: cfg,
		lag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "stockd_expiry_lag_seconds", Help: "Time from a reservation's deadline to its expiry.",
			Buckets: prometheus.ExponentialBuckets(0.01, 2, 14),
		}),
		expired: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_expired_reservations_total", Help: "Reservations released by the expiry worker.",
		}),
		stop: make(chan struct{}),
		done: make(chan struct{}),
	}
	if cfg.Registerer != nil {
		cfg.Registerer.MustRegister(w.lag, w.expired)
	}
	return w
}

// Start runs passes every Interval until Stop.
func (w *Worker) Start() {
	go func() {
		defer close(w.done)
		ticker := time.NewTicker(w.cfg.Interval)
		defer ticker.Stop()
		for tick := 0; ; tick++ {
			select {
			case <-w.stop:
				return
			case <-ticker.C:
			}
			if tick%campaignSweepEvery == 0 {
				if _, err := w.CloseEndedCampaigns(context.Background()); err != nil {
					w.cfg.Logger.Error("closing ended campaigns failed", "err", err)
				}
			}
			for range catchUpPassesMax {
				n, err := w.RunOnce(context.Background())
				if err != nil {
					w.cfg.Logger.Error("expiry pass failed", "err", err)
					break
				}
				if n < w.cfg.BatchSizeMax {
					break
				}
			}
		}
	}()
}

// Stop ends the loop and waits for the pass in progress.
func (w *Worker) Stop() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

// RunOnce expires up to BatchSizeMax due reservations and returns how many
// it found due.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	ctx, cancel := context.WithTimeout(ctx, w.cfg.PassTimeout)
	defer cancel()
	now := w.cfg.Now()
	ids, err := w.cfg.Store.ReservationListDue(ctx, now, w.cfg.BatchSizeMax)
	if err != nil {
		return 0, fmt.Errorf("list due reservations: %w", err)
	}
	// Submitted together, the commands coalesce into few batches.
	errs := make([]error, len(ids))
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = w.expire(ctx, id)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return len(ids), err
		}
	}
	return len(ids), nil
}

func (w *Worker) expire(ctx context.Context, id string) error {
	res, err := w.cfg.Engine.Submit(ctx, stockd.Command{
		Actor: "expiry", Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: id},
	})
	if err != nil {
		return fmt.Errorf("expire %s: %w", id, err)
	}
	if res.Err != nil {
		return fmt.Errorf("expire %s: %w", id, res.Err)
	}
	if r := res.Reservation; r != nil && r.Status == stockd.StatusExpired && r.UpdatedAt.After(r.ExpiresAt.Add(-time.Nanosecond)) {
		w.lag.Observe(r.UpdatedAt.Sub(r.ExpiresAt).Seconds())
		w.expired.Inc()
	}
	return nil
}
