package alert

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/replenish"
	"github.com/stockd/stockd/store"
)

// Store is what the worker reads and writes; store.Store has all of it.
type Store interface {
	SKUList(ctx context.Context, after string, limit int) ([]stockd.SKU, error)
	LedgerList(ctx context.Context, p store.LedgerListParams) ([]stockd.LedgerEntry, error)
	AlertOpenGet(ctx context.Context, sku string) (stockd.Alert, error)
	AlertList(ctx context.Context, p store.AlertListParams) ([]stockd.Alert, error)
	AlertNoticeList(ctx context.Context, businessDate, sku string) ([]stockd.AlertNotice, error)
	AlertWrite(ctx context.Context, p store.AlertWriteParams) (store.AlertWriteResult, error)
	AlertCursorGet(ctx context.Context) (int64, error)
	AlertCursorSet(ctx context.Context, seq int64) error
	AlertDigestMark(ctx context.Context, businessDate string, at time.Time) (bool, error)
	SKUAlertLineSet(ctx context.Context, sku string, line int64) (bool, error)
}

// NotifyFunc writes notices on the ledger through the engine's one write
// path (stockd.NoticeCommand); serve passes the engine's.
type NotifyFunc func(ctx context.Context, notices []stockd.Notice) error

// EvaluateFunc computes one SKU's figures with the history up to the end
// of the business date asOf and the books' stock now (the replenishment
// evaluation; the worker computes no figure of its own). A SKU that does
// not exist is an error wrapping stockd.ErrNotFound.
type EvaluateFunc func(ctx context.Context, sku, asOf string) (replenish.Figures, error)

// Config configures a Worker. Zero values mean the documented default.
type Config struct {
	Store    Store
	Evaluate EvaluateFunc
	// Notifier delivers what is sent; nil records alerts and notices only.
	Notifier *Notifier
	// Notify writes the alert's events (alert_raised, alert_escalated,
	// alert_acknowledged, alert_resolved) on the ledger; nil writes none.
	Notify NotifyFunc
	Policy Policy
	// Zone is the business time zone: it decides the business date of the
	// dedup and when the daily job runs. Defaults to UTC.
	Zone *time.Location
	// DailyAt is the local time of day of the daily job, as an offset from
	// midnight in Zone. Defaults to 0 (midnight).
	DailyAt time.Duration
	// Interval between passes over the ledger. Defaults to 1 second.
	Interval time.Duration
	// Debounce is how long a SKU's stock must stay unchanged before it is
	// evaluated. Defaults to 5 seconds.
	Debounce time.Duration
	// DebounceMax bounds the wait of a SKU whose stock never stops changing
	// (a hot SKU in a sale). Defaults to 1 minute.
	DebounceMax time.Duration
	// TickInterval is the period of the escalation pass. Defaults to 1
	// minute.
	TickInterval time.Duration
	// PassTimeout bounds one pass. Defaults to 30 seconds.
	PassTimeout time.Duration
	// DailyTimeout bounds the daily job, which evaluates every SKU.
	// Defaults to 30 minutes.
	DailyTimeout time.Duration
	// Now is the clock. Defaults to time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Metrics may be nil.
	Metrics *Metrics
}

const (
	intervalDefault     = time.Second
	debounceDefault     = 5 * time.Second
	debounceMaxDefault  = time.Minute
	tickIntervalDefault = time.Minute
	passTimeoutDefault  = 30 * time.Second
	dailyTimeoutDefault = 30 * time.Minute
	// pendingMax bounds the SKUs waiting for their debounce; beyond it a
	// changed SKU waits for the daily job.
	pendingMax = 100_000
	// ledgerPagesPerPass bounds the ledger read in one pass
	// (stockd.PageSizeMax entries a page).
	ledgerPagesPerPass = 20
	// evaluationsPerPassMax bounds the SKUs one pass evaluates.
	evaluationsPerPassMax = 1000
	// writeAttemptsMax bounds the re-reads of one SKU's alert when another
	// write (an acknowledgement, another replica) came first.
	writeAttemptsMax = 5
)

// Worker evaluates SKUs when their stock changes (following the ledger as
// a cursor, debounced per SKU), escalates open alerts as time passes, and
// once a day evaluates every SKU and sends the digest. Every pass is
// idempotent: an evaluation repeated decides nothing new.
type Worker struct {
	cfg     Config
	mu      sync.Mutex // guards pending, cursor, lastDaily
	pending map[string]change
	// cursor is the last ledger Seq read.
	cursor    int64
	loaded    bool
	lastDaily string
	// acked remembers the alerts whose acknowledgement was noticed, so the
	// escalation pass notices each once (a restart notices again, and the
	// notice's idempotency key makes that a replay). Bounded by pendingMax.
	acked map[int64]bool
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once
}

// change is a SKU waiting for its debounce.
type change struct {
	first, last time.Time
	// seq is the first unevaluated ledger entry of the SKU: the stored
	// cursor stays below it until the SKU is evaluated.
	seq int64
}

// New returns a worker; Start runs it.
func New(cfg Config) *Worker {
	if cfg.Store == nil || cfg.Evaluate == nil {
		panic("alert: Config.Store and Config.Evaluate are required")
	}
	if cfg.Zone == nil {
		cfg.Zone = time.UTC
	}
	if cfg.Interval <= 0 {
		cfg.Interval = intervalDefault
	}
	if cfg.Debounce <= 0 {
		cfg.Debounce = debounceDefault
	}
	if cfg.DebounceMax <= 0 {
		cfg.DebounceMax = debounceMaxDefault
	}
	if cfg.TickInterval <= 0 {
		cfg.TickInterval = tickIntervalDefault
	}
	if cfg.PassTimeout <= 0 {
		cfg.PassTimeout = passTimeoutDefault
	}
	if cfg.DailyTimeout <= 0 {
		cfg.DailyTimeout = dailyTimeoutDefault
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	cfg.Policy = cfg.Policy.withDefaults()
	return &Worker{cfg: cfg, pending: map[string]change{}, acked: map[int64]bool{}, stop: make(chan struct{}), done: make(chan struct{})}
}

// Start runs the passes until Stop.
func (w *Worker) Start() {
	go func() {
		defer close(w.done)
		ticker := time.NewTicker(w.cfg.Interval)
		defer ticker.Stop()
		lastTick := time.Time{}
		for {
			select {
			case <-w.stop:
				return
			case <-ticker.C:
			}
			w.pass(func(ctx context.Context) error { return w.Follow(ctx) }, "follow ledger")
			w.pass(func(ctx context.Context) error { _, err := w.EvaluateDue(ctx); return err }, "evaluate changed skus")
			if now := w.cfg.Now(); now.Sub(lastTick) >= w.cfg.TickInterval {
				lastTick = now
				w.pass(w.Escalate, "escalate")
			}
			w.passWithin(w.cfg.DailyTimeout, func(ctx context.Context) error { _, err := w.DailyIfDue(ctx); return err }, "daily job")
		}
	}()
}

func (w *Worker) pass(fn func(context.Context) error, what string) {
	w.passWithin(w.cfg.PassTimeout, fn, what)
}

func (w *Worker) passWithin(timeout time.Duration, fn func(context.Context) error, what string) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if err := fn(ctx); err != nil {
		w.cfg.Logger.Error("alert worker: "+what+" failed", "err", err)
	}
}

// Stop ends the loop and waits for the pass in progress.
func (w *Worker) Stop() {
	w.once.Do(func() { close(w.stop) })
	<-w.done
}

// BusinessDate is the business date holding t.
func (w *Worker) BusinessDate(t time.Time) string {
	return t.In(w.cfg.Zone).Format(time.DateOnly)
}

// asOf is the business date whose end bounds the history of an evaluation
// at now: the day before, as in the backtest, so that today's first hours
// do not count as a whole day of (little) demand.
func (w *Worker) asOf(now time.Time) string {
	local := now.In(w.cfg.Zone)
	return time.Date(local.Year(), local.Month(), local.Day()-1, 12, 0, 0, 0, w.cfg.Zone).Format(time.DateOnly)
}

// Follow reads the ledger past the cursor and marks the SKUs it touched as
// changed. The stored cursor stays below the first entry of every SKU not
// evaluated yet, so a restart re-reads what a crash would lose.
func (w *Worker) Follow(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.loaded {
		seq, err := w.cfg.Store.AlertCursorGet(ctx)
		if err != nil {
			return fmt.Errorf("read alert cursor: %w", err)
		}
		w.cursor, w.loaded = seq, true
	}
	now := w.cfg.Now()
	for range ledgerPagesPerPass {
		entries, err := w.cfg.Store.LedgerList(ctx, store.LedgerListParams{After: w.cursor, Limit: stockd.PageSizeMax})
		if err != nil {
			return fmt.Errorf("read ledger after %d: %w", w.cursor, err)
		}
		for _, e := range entries {
			sku := e.Position.SKU
			w.cursor = e.Seq
			if stockd.EventOnly(e.BusinessType) {
				continue // an event (ours among them) changes no stock
			}
			c, ok := w.pending[sku]
			if !ok {
				if len(w.pending) >= pendingMax {
					continue // the daily job evaluates it
				}
				c = change{first: now, seq: e.Seq}
			}
			c.last = now
			w.pending[sku] = c
		}
		if len(entries) < stockd.PageSizeMax {
			break
		}
	}
	return w.storeCursor(ctx)
}

// storeCursor stores the highest Seq below which every change has been
// evaluated. Lock should be held.
func (w *Worker) storeCursor(ctx context.Context) error {
	safe := w.cursor
	for _, c := range w.pending {
		safe = min(safe, c.seq-1)
	}
	if err := w.cfg.Store.AlertCursorSet(ctx, safe); err != nil {
		return fmt.Errorf("store alert cursor: %w", err)
	}
	return nil
}

// EvaluateDue evaluates the changed SKUs whose debounce has passed and
// returns how many it evaluated.
func (w *Worker) EvaluateDue(ctx context.Context) (int, error) {
	now := w.cfg.Now()
	w.mu.Lock()
	var due []string
	for sku, c := range w.pending {
		if len(due) == evaluationsPerPassMax {
			break
		}
		if now.Sub(c.last) >= w.cfg.Debounce || now.Sub(c.first) >= w.cfg.DebounceMax {
			due = append(due, sku)
		}
	}
	w.mu.Unlock()
	var errs []error
	for _, sku := range due {
		// A failed evaluation is not retried every pass (a SKU whose
		// evaluation fails for good would be hammered, and hold the cursor
		// back): it is logged, and the SKU's next change or the daily job
		// tries again.
		if err := w.EvaluateSKU(ctx, sku); err != nil {
			errs = append(errs, err)
		}
		w.mu.Lock()
		delete(w.pending, sku)
		w.mu.Unlock()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.loaded {
		errs = append(errs, w.storeCursor(ctx))
	}
	return len(due), errors.Join(errs...)
}

// EvaluateSKU evaluates one SKU now and writes what Decide says. A SKU
// that no longer exists has nothing to say.
func (w *Worker) EvaluateSKU(ctx context.Context, sku string) error {
	now := w.cfg.Now()
	figures, err := w.cfg.Evaluate(ctx, sku, w.asOf(now))
	if errors.Is(err, stockd.ErrNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("evaluate %q: %w", sku, err)
	}
	w.cfg.Metrics.evaluated()
	// The batch decides stock_low against the line cached on the SKU row;
	// written only when it moved, so most evaluations write nothing.
	if _, err := w.cfg.Store.SKUAlertLineSet(ctx, sku, max(figures.AlertLine, 0)); err != nil {
		return fmt.Errorf("cache alert line of %q: %w", sku, err)
	}
	date := w.BusinessDate(now)
	return w.write(ctx, sku, date, func(open *stockd.Alert, today []stockd.AlertNotice) Decision {
		return Decide(w.cfg.Policy, open, Evaluation{SKU: sku, Figures: figures, At: now, BusinessDate: date, Today: today})
	})
}

// write reads the SKU's open alert and today's notices, decides and
// writes; when another write came first, it reads and decides again.
func (w *Worker) write(ctx context.Context, sku, date string, decide func(*stockd.Alert, []stockd.AlertNotice) Decision) error {
	for range writeAttemptsMax {
		var open *stockd.Alert
		a, err := w.cfg.Store.AlertOpenGet(ctx, sku)
		switch {
		case err == nil:
			open = &a
		case !errors.Is(err, stockd.ErrNotFound):
			return fmt.Errorf("read open alert of %q: %w", sku, err)
		}
		today, err := w.cfg.Store.AlertNoticeList(ctx, date, sku)
		if err != nil {
			return fmt.Errorf("read notices of %q: %w", sku, err)
		}
		d := decide(open, today)
		if d.Empty() {
			return nil
		}
		res, err := w.cfg.Store.AlertWrite(ctx, store.AlertWriteParams{Resolve: d.Resolve, Save: d.Save, Notices: d.Notices})
		if errors.Is(err, stockd.ErrAlertChanged) {
			continue
		}
		if err != nil {
			return fmt.Errorf("write alert of %q: %w", sku, err)
		}
		w.deliver(res)
		w.notice(ctx, open, d, res)
		return nil
	}
	return fmt.Errorf("write alert of %q: %d attempts lost to other writes: %w", sku, writeAttemptsMax, stockd.ErrAlertChanged)
}

// deliver hands the sent notices of a write to the notifier.
func (w *Worker) deliver(res store.AlertWriteResult) {
	for _, n := range res.Inserted {
		w.cfg.Metrics.noticed(n.Kind)
		if n.Kind == stockd.AlertNoticeSent && w.cfg.Notifier != nil {
			w.cfg.Notifier.Enqueue(alertMessage(res.Saved, n))
		}
	}
}

// Escalate passes over the open alerts and escalates those due.
func (w *Worker) Escalate(ctx context.Context) error {
	now := w.cfg.Now()
	date := w.BusinessDate(now)
	var errs []error
	for after := int64(0); ; {
		page, err := w.cfg.Store.AlertList(ctx, store.AlertListParams{Status: stockd.AlertOpen, After: after, Limit: stockd.PageSizeMax})
		if err != nil {
			return fmt.Errorf("list open alerts: %w", err)
		}
		for _, a := range page {
			w.noticeAck(ctx, a)
			if d := Tick(w.cfg.Policy, a, now, date, nil); d.Empty() {
				continue // the common case: no read of notices
			}
			errs = append(errs, w.write(ctx, a.SKU, date, func(open *stockd.Alert, today []stockd.AlertNotice) Decision {
				if open == nil {
					return Decision{}
				}
				return Tick(w.cfg.Policy, *open, now, date, today)
			}))
		}
		if len(page) < stockd.PageSizeMax {
			return errors.Join(errs...)
		}
		after = page[len(page)-1].ID
	}
}

// DailyIfDue runs the daily job once per business date, at the first pass
// at or after DailyAt local time, and reports whether it ran.
func (w *Worker) DailyIfDue(ctx context.Context) (bool, error) {
	now := w.cfg.Now()
	local := now.In(w.cfg.Zone)
	midnight := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, w.cfg.Zone)
	date := w.BusinessDate(now)
	w.mu.Lock()
	ran := w.lastDaily == date
	w.mu.Unlock()
	if ran || local.Before(midnight.Add(w.cfg.DailyAt)) {
		return false, nil
	}
	// Marked before it runs: a job that fails for some SKUs is logged and
	// runs again tomorrow, not every pass.
	w.mu.Lock()
	w.lastDaily = date
	w.mu.Unlock()
	return true, w.Daily(ctx)
}

// Daily evaluates every SKU and sends the digest of the previous business
// date (once: a second run finds it marked). Both halves are idempotent.
func (w *Worker) Daily(ctx context.Context) error {
	var errs []error
	for after := ""; ; {
		skus, err := w.cfg.Store.SKUList(ctx, after, stockd.PageSizeMax)
		if err != nil {
			return fmt.Errorf("list skus after %q: %w", after, err)
		}
		for _, s := range skus {
			if s.Bundle {
				continue // a bundle holds no stock of its own
			}
			if err := w.EvaluateSKU(ctx, s.ID); err != nil {
				errs = append(errs, err)
			}
		}
		if len(skus) < stockd.PageSizeMax {
			break
		}
		after = skus[len(skus)-1].ID
	}
	return errors.Join(append(errs, w.digest(ctx))...)
}

func (w *Worker) digest(ctx context.Context) error {
	now := w.cfg.Now()
	date := w.asOf(now)
	notices, err := w.cfg.Store.AlertNoticeList(ctx, date, "")
	if err != nil {
		return fmt.Errorf("read notices of %s: %w", date, err)
	}
	var lines []stockd.AlertNotice
	for _, n := range notices {
		if n.Kind == stockd.AlertNoticeDigest {
			lines = append(lines, n)
		}
	}
	if len(lines) == 0 {
		return nil
	}
	marked, err := w.cfg.Store.AlertDigestMark(ctx, date, now)
	if err != nil {
		return fmt.Errorf("mark digest of %s: %w", date, err)
	}
	if marked && w.cfg.Notifier != nil {
		w.cfg.Notifier.Enqueue(digestMessage(date, lines))
	}
	return nil
}
