// Package reconcile runs the passes that check the books while the service
// runs, and records what they find as discrepancies. It reports; it never
// fixes: nothing here changes stock. Its only command is the notice of a
// discrepancy opened or closed (Config.Notify), an event-only ledger
// entry that the passes themselves pass over. A
// discrepancy is resolved by an operator's adjustment that names it (see
// stockd.Adjust.DiscrepancyID), and closes when a later pass that checks it
// no longer sees it.
//
//   - The minute pass reads the ledger after its cursor, in bounded
//     batches, and checks only the positions those entries changed.
//   - The hour pass looks for what workers left behind: holds past their
//     deadline, orders confirmed long ago and not shipped, approvals past
//     their expiry, and the NATS relay or a webhook too far behind the
//     ledger (relay_lag).
//   - The day pass is the full verify (package audit), recorded.
package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Config configures a Reconciler. Zero values mean the documented default.
type Config struct {
	// Store holds the books and the discrepancies. Required.
	Store store.Store
	// BatchEntries bounds the ledger entries one minute-pass batch reads in
	// one snapshot. Defaults to stockd.ReconcileEntriesPerBatchMax, which
	// also caps it.
	BatchEntries int
	// BatchesPerPass bounds the batches of one minute pass; a backlog
	// beyond it waits for the next pass. Defaults to 100.
	BatchesPerPass int
	// BatchPause is the pause between two batches of a pass, so that a
	// backlog is read at a bounded rate beside the hot path. Defaults to
	// 20 milliseconds.
	BatchPause time.Duration
	// HoldGrace is how long past its deadline a pending hold may wait for
	// the expiry worker before the hour pass reports it. Defaults to 5
	// minutes.
	HoldGrace time.Duration
	// UnshippedAge is how long a reservation may stay confirmed and not
	// shipped before the hour pass reports it. Defaults to 7 days.
	UnshippedAge time.Duration
	// PassTimeout bounds one pass. Defaults to 5 minutes.
	PassTimeout time.Duration
	// RelayNames are the relays (store.RelayCursorGet names) whose cursors
	// the hour pass compares with the ledger: serve names its NATS relay
	// when it runs one. Empty checks none.
	RelayNames []string
	// Webhooks makes the hour pass compare each enabled webhook's cursor
	// with the ledger: serve sets it when its dispatcher runs.
	Webhooks bool
	// RelayLagMax is how old the oldest event a relay or webhook has not
	// delivered may be before the hour pass reports it. Defaults to 5
	// minutes.
	RelayLagMax time.Duration
	// RelayLagEventsMax is how many events a relay or webhook may be
	// behind before the hour pass reports it. Defaults to 100,000.
	RelayLagEventsMax int64
	// Notify writes the events of discrepancies opened and closed
	// (stockd.NoticeDiscrepancyOpened, ...Closed) on the ledger; nil
	// writes none.
	Notify NotifyFunc
	// Now is the clock. Defaults to time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Registerer receives the reconciliation metrics; may be nil.
	Registerer prometheus.Registerer
}

// NotifyFunc writes notices on the ledger through the engine's one write
// path; serve passes the engine's.
type NotifyFunc func(ctx context.Context, notices []stockd.Notice) error

const (
	relayLagDefault       = 5 * time.Minute
	relayLagEventsDefault = 100_000
	batchesPerPassDefault = 100
	batchPauseDefault     = 20 * time.Millisecond
	holdGraceDefault      = 5 * time.Minute
	unshippedAgeDefault   = 7 * 24 * time.Hour
	passTimeoutDefault    = 5 * time.Minute
)

// Reconciler runs the passes. Passes of one Reconciler never overlap.
type Reconciler struct {
	cfg     Config
	metrics *metrics
	// mu serialises passes: two minute passes reading from one cursor
	// would record the same findings twice over.
	mu sync.Mutex
}

// Result is what one pass recorded: its runs (a minute pass records one
// per batch) and what they found.
type Result struct {
	Runs     []stockd.ReconcileRun `json:"runs"`
	Findings []stockd.Finding      `json:"findings"`
}

// Clean reports whether the pass found nothing.
func (r Result) Clean() bool { return len(r.Findings) == 0 }

func (r *Result) add(run stockd.ReconcileRun, findings []stockd.Finding) {
	r.Runs = append(r.Runs, run)
	r.Findings = append(r.Findings, findings...)
}

// New returns a Reconciler.
func New(cfg Config) *Reconciler {
	if cfg.Store == nil {
		panic("reconcile: Config.Store is required")
	}
	if cfg.BatchEntries <= 0 || cfg.BatchEntries > stockd.ReconcileEntriesPerBatchMax {
		cfg.BatchEntries = stockd.ReconcileEntriesPerBatchMax
	}
	if cfg.BatchesPerPass <= 0 {
		cfg.BatchesPerPass = batchesPerPassDefault
	}
	if cfg.BatchPause <= 0 {
		cfg.BatchPause = batchPauseDefault
	}
	if cfg.HoldGrace <= 0 {
		cfg.HoldGrace = holdGraceDefault
	}
	if cfg.UnshippedAge <= 0 {
		cfg.UnshippedAge = unshippedAgeDefault
	}
	if cfg.PassTimeout <= 0 {
		cfg.PassTimeout = passTimeoutDefault
	}
	if cfg.RelayLagMax <= 0 {
		cfg.RelayLagMax = relayLagDefault
	}
	if cfg.RelayLagEventsMax <= 0 {
		cfg.RelayLagEventsMax = relayLagEventsDefault
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &Reconciler{cfg: cfg, metrics: newMetrics(cfg.Registerer)}
}

// ErrUnknownPass is returned for a pass name not in stockd.Passes.
var ErrUnknownPass = errors.New("unknown pass")

// Pass runs one pass by name: minute, hour or day.
func (r *Reconciler) Pass(ctx context.Context, pass string) (Result, error) {
	switch pass {
	case stockd.PassMinute:
		return r.Minute(ctx)
	case stockd.PassHour:
		return r.Hour(ctx)
	case stockd.PassDay:
		return r.Day(ctx)
	}
	return Result{}, fmt.Errorf("pass %q: %w: want minute, hour or day", pass, ErrUnknownPass)
}

// record stores one run and refreshes the metrics.
func (r *Reconciler) record(ctx context.Context, run stockd.ReconcileRun, findings []stockd.Finding, scopes []store.ReconcileScope) (stockd.ReconcileRun, error) {
	run.FinishedAt = r.now()
	recorded, err := r.cfg.Store.ReconcileRecord(ctx, store.ReconcileRecordParams{Run: run, Findings: findings, Scopes: scopes})
	if err != nil {
		return run, err
	}
	r.metrics.ran(recorded)
	if recorded.Opened+recorded.Closed > 0 {
		r.notice(ctx, recorded)
	}
	if err := r.RefreshMetrics(ctx); err != nil {
		r.cfg.Logger.Warn("refreshing the open discrepancy gauge failed", "err", err)
	}
	if len(findings) > 0 {
		r.cfg.Logger.Warn("reconciliation found discrepancies", "pass", run.Pass, "run", recorded.ID,
			"findings", len(findings), "opened", recorded.Opened, "closed", recorded.Closed)
	}
	return recorded, nil
}

// RefreshMetrics sets the gauges of open discrepancies and open
// exceptions by kind from the store.
func (r *Reconciler) RefreshMetrics(ctx context.Context) error {
	counts, err := r.cfg.Store.DiscrepancyOpenCounts(ctx)
	if err != nil {
		return err
	}
	r.metrics.open(counts)
	exceptions, err := r.cfg.Store.ExceptionOpenCounts(ctx)
	if err != nil {
		return err
	}
	r.metrics.exceptions(exceptions)
	return nil
}

func (r *Reconciler) now() time.Time { return r.cfg.Now().UTC().Truncate(time.Microsecond) }

// pause waits between batches, or returns ctx's error.
func (r *Reconciler) pause(ctx context.Context) error {
	t := time.NewTimer(r.cfg.BatchPause)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// capFindings keeps at most stockd.ReconcileFindingsPerRunMax findings and
// reports whether it cut any: a run that did not record everything it saw
// must not close what it left out.
func capFindings(findings []stockd.Finding) ([]stockd.Finding, bool) {
	if len(findings) <= stockd.ReconcileFindingsPerRunMax {
		return findings, false
	}
	return findings[:stockd.ReconcileFindingsPerRunMax], true
}

// sortedKeys returns the keys of m in key order.
func sortedKeys[V any](m map[stockd.PositionKey]V) []stockd.PositionKey {
	keys := make([]stockd.PositionKey, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b stockd.PositionKey) int {
		if a.Less(b) {
			return -1
		}
		if b.Less(a) {
			return 1
		}
		return 0
	})
	return keys
}

// notice writes the events of the discrepancies run opened and closed.
// The run is recorded already: a notice that fails is logged, and the
// discrepancy records stay the truth (GET /v1/discrepancies).
func (r *Reconciler) notice(ctx context.Context, run stockd.ReconcileRun) {
	if r.cfg.Notify == nil {
		return
	}
	for after := int64(0); ; {
		page, err := r.cfg.Store.DiscrepancyList(ctx, store.DiscrepancyListParams{Run: run.ID, After: after, Limit: stockd.PageSizeMax})
		if err != nil {
			r.cfg.Logger.Warn("reading the discrepancies of a run for their events failed", "run", run.ID, "err", err)
			return
		}
		notices := make([]stockd.Notice, 0, len(page))
		for _, d := range page {
			if n, ok := noticeOf(d, run.ID); ok {
				notices = append(notices, n)
			}
		}
		if err := r.cfg.Notify(ctx, notices); err != nil {
			r.cfg.Logger.Warn("writing discrepancy events on the ledger failed", "run", run.ID, "err", err)
			return
		}
		if len(page) < stockd.PageSizeMax {
			return
		}
		after = page[len(page)-1].ID
	}
}

// noticeOf is the event of d's opening or closing by run: at its
// position, or its SKU's, or nowhere in particular.
func noticeOf(d stockd.Discrepancy, run int64) (stockd.Notice, bool) {
	n := stockd.Notice{Subject: strconv.FormatInt(d.ID, 10), SKU: d.Position.SKU, Reason: d.Kind}
	switch {
	case d.ClosedByRun == run:
		n.Type = stockd.NoticeDiscrepancyClosed
	case d.FirstRun == run && d.Status == stockd.DiscrepancyOpen:
		n.Type = stockd.NoticeDiscrepancyOpened
	default:
		return n, false
	}
	if d.Position.Location != "" && d.Position.Pool != "" {
		k := d.Position
		n.Position = &k
	}
	return n, true
}
