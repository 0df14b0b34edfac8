// Package dispatch delivers the ledger, the outbox of events, to the HTTP
// endpoints registered at POST /v1/webhooks. Each endpoint has a cursor of
// its own (the last seq it acknowledged with a 2xx) and gets the events
// after it that match its types, one at a time in seq order, as
// CloudEvents 1.0 structured JSON signed with its secret (package
// webhook). A failure is retried with exponential backoff and full jitter
// until the endpoint has failed FailuresMax times in a row; then it is
// disabled (dead-lettered) with the reason, until POST
// /v1/webhooks/{id}/redeliver moves its cursor and enables it again.
//
// Of several replicas one dispatches at a time: the leader holds the
// relay lease (store.RelayLeaseTry) under Name. Delivery is at least once:
// a crash between a receiver's 2xx and the cursor's write, or a takeover,
// sends the event again with the same id. See docs/design.md, "Webhooks".
package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/webhook"
)

// Config configures a Dispatcher. Zero values mean the documented default.
type Config struct {
	// Store holds the ledger and the endpoints. Required.
	Store store.Store
	// Encode turns an entry into an event's data; the service passes the
	// form GET /v1/events answers. Required.
	Encode func(stockd.LedgerEntry) ([]byte, error)
	// Environment names the events' source (/stockd/<env>) and prefixes
	// their ids (<env>:<seq>, as the NATS relay's Nats-Msg-Id). Defaults
	// to "default".
	Environment string
	// Name keys the lease. Defaults to "webhooks".
	Name string
	// FailuresMax is how many consecutive failures disable an endpoint.
	// Defaults to 10, at most FailuresLimit.
	FailuresMax int
	// Timeout bounds one attempt, answer included. Defaults to 10 seconds.
	Timeout time.Duration
	// BackoffBase is the first retry's longest wait; each further failure
	// doubles it, up to BackoffMax. Default 1 second and 5 minutes.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// PollInterval is the pause between reads of the ledger once an
	// endpoint is caught up. Defaults to 250 milliseconds.
	PollInterval time.Duration
	// StandbyInterval is how often a replica that does not lead asks for
	// the lease, and how often the leader checks it and looks for new
	// endpoints. Defaults to 1 second.
	StandbyInterval time.Duration
	// Client defaults to one that follows no redirects: a 3xx is a failure.
	Client *http.Client
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Registerer receives the metrics. May be nil.
	Registerer prometheus.Registerer
	// Now defaults to time.Now.
	Now func() time.Time
}

// Defaults and limits.
const (
	FailuresLimit          = 1000
	failuresDefault        = 10
	timeoutDefault         = 10 * time.Second
	backoffBaseDefault     = time.Second
	backoffMaxDefault      = 5 * time.Minute
	pollIntervalDefault    = 250 * time.Millisecond
	standbyIntervalDefault = time.Second
	// pageSize bounds the ledger read per step of an endpoint: what it
	// skips of other types at once.
	pageSize = 256
	// responseBodyMax bounds what is read of a receiver's answer.
	responseBodyMax = 4 << 10
	// storeTimeout bounds each database call.
	storeTimeout = 5 * time.Second
)

// ContentType is a structured CloudEvent's (CloudEvents HTTP binding).
const ContentType = "application/cloudevents+json; charset=utf-8"

// Event is a CloudEvents 1.0 event in structured JSON: what a receiver
// gets as the body.
type Event struct {
	SpecVersion string    `json:"specversion"`
	ID          string    `json:"id"`
	Source      string    `json:"source"`
	Type        string    `json:"type"`
	Time        time.Time `json:"time"`
	// Subject is the SKU; an event of no SKU (a notice such as a
	// relay_lag discrepancy's) has none, as CloudEvents wants a subject
	// that is present to be non-empty.
	Subject         string          `json:"subject,omitempty"`
	DataContentType string          `json:"datacontenttype"`
	Data            json.RawMessage `json:"data"`
}

// TypePrefix starts every event type: stockd.reserve, stockd.receipt, ...
const TypePrefix = "stockd."

// Dispatcher is the worker. Run it once.
type Dispatcher struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics
}

// New checks cfg and returns a Dispatcher.
func New(cfg Config) (*Dispatcher, error) {
	if cfg.Store == nil || cfg.Encode == nil {
		return nil, errors.New("dispatch: Store and Encode are required")
	}
	if cfg.Environment == "" {
		cfg.Environment = "default"
	}
	if cfg.Name == "" {
		cfg.Name = "webhooks"
	}
	if !store.RelayNameValid(cfg.Name) {
		return nil, fmt.Errorf("dispatch: name %q: want 1-64 printable ASCII characters", cfg.Name)
	}
	if cfg.FailuresMax <= 0 {
		cfg.FailuresMax = failuresDefault
	}
	if cfg.FailuresMax > FailuresLimit {
		return nil, fmt.Errorf("dispatch: failures max %d: want at most %d", cfg.FailuresMax, FailuresLimit)
	}
	cfg.Timeout = orDefault(cfg.Timeout, timeoutDefault)
	cfg.BackoffBase = orDefault(cfg.BackoffBase, backoffBaseDefault)
	cfg.BackoffMax = max(orDefault(cfg.BackoffMax, backoffMaxDefault), cfg.BackoffBase)
	cfg.PollInterval = orDefault(cfg.PollInterval, pollIntervalDefault)
	cfg.StandbyInterval = orDefault(cfg.StandbyInterval, standbyIntervalDefault)
	if cfg.Client == nil {
		cfg.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	m, err := newMetrics(cfg.Registerer)
	if err != nil {
		return nil, err
	}
	return &Dispatcher{cfg: cfg, log: cfg.Logger.With("dispatcher", cfg.Name), metrics: m}, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Run dispatches until ctx ends: in turn it waits for the lease and
// delivers while it holds it. It returns nil when ctx ends.
func (d *Dispatcher) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		led, err := d.leadOnce(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			d.log.Warn("dispatcher failing; retrying", "err", err)
		case led:
			continue
		}
		sleep(ctx, d.cfg.StandbyInterval)
	}
	return nil
}

// leadOnce takes the lease if it is free and runs one delivery loop per
// enabled endpoint until the lease fails or ctx ends.
func (d *Dispatcher) leadOnce(ctx context.Context) (bool, error) {
	tryCtx, cancel := context.WithTimeout(ctx, storeTimeout)
	lease, err := d.cfg.Store.RelayLeaseTry(tryCtx, d.cfg.Name)
	cancel()
	if errors.Is(err, store.ErrLeaseHeld) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("dispatch: take lease: %w", err)
	}
	defer func() {
		releaseCtx, cancel := context.WithTimeout(context.Background(), storeTimeout)
		defer cancel()
		if err := lease.Release(releaseCtx); err != nil {
			d.log.Warn("dispatch: release lease", "err", err)
		}
		d.metrics.leader.Set(0)
	}()
	d.metrics.leader.Set(1)
	d.log.Info("dispatcher leading")
	return true, d.lead(ctx, lease)
}

// loop is one endpoint's delivery loop.
type loop struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// lead keeps one loop per enabled endpoint, checking the lease and the
// endpoints every StandbyInterval, and stops them all when it returns.
func (d *Dispatcher) lead(ctx context.Context, lease store.RelayLease) error {
	loops := map[string]*loop{}
	defer func() {
		for _, l := range loops {
			l.cancel()
			<-l.done
		}
	}()
	for ctx.Err() == nil {
		checkCtx, cancel := context.WithTimeout(ctx, storeTimeout)
		err := lease.Check(checkCtx)
		var targets []store.WebhookTarget
		if err == nil {
			targets, err = d.cfg.Store.WebhookTargets(checkCtx)
		}
		cancel()
		if err != nil {
			return fmt.Errorf("dispatch: %w", err)
		}
		for id, l := range loops {
			select {
			case <-l.done:
				delete(loops, id) // ended: disabled, or its endpoint gone
			default:
			}
		}
		for _, t := range targets {
			if _, ok := loops[t.Webhook.ID]; ok {
				continue
			}
			loopCtx, cancel := context.WithCancel(ctx)
			l := &loop{cancel: cancel, done: make(chan struct{})}
			loops[t.Webhook.ID] = l
			go func() {
				defer close(l.done)
				d.deliverLoop(loopCtx, t.Webhook.ID, []byte(t.Secret))
			}()
		}
		sleep(ctx, d.cfg.StandbyInterval)
	}
	return nil
}

// deliverLoop delivers to one endpoint until it is disabled or ctx ends.
// Each step reads the endpoint afresh, so that a redelivery or a disabling
// through the API is seen before the next attempt.
func (d *Dispatcher) deliverLoop(ctx context.Context, id string, secret []byte) {
	failures := 0 // of the database, not of the endpoint
	for ctx.Err() == nil {
		done, err := d.step(ctx, id, secret)
		if done {
			return
		}
		if err != nil && ctx.Err() == nil {
			failures++
			d.log.Warn("dispatch: endpoint step failed", "webhook", id, "err", err)
			sleep(ctx, min(d.cfg.PollInterval<<min(failures, 6), d.cfg.BackoffMax))
			continue
		}
		failures = 0
	}
}

// step makes one attempt on the endpoint's next event, or skips events it
// does not take, or waits for new ones. done says the loop should end.
func (d *Dispatcher) step(ctx context.Context, id string, secret []byte) (done bool, err error) {
	w, err := callStore(ctx, func(ctx context.Context) (stockd.Webhook, error) { return d.cfg.Store.WebhookGet(ctx, id) })
	if errors.Is(err, stockd.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	if w.Disabled() {
		return true, nil
	}
	entries, err := callStore(ctx, func(ctx context.Context) ([]stockd.LedgerEntry, error) {
		return d.cfg.Store.LedgerList(ctx, store.LedgerListParams{After: w.Cursor, Limit: pageSize})
	})
	if err != nil {
		return false, err
	}
	var next *stockd.LedgerEntry
	for i := range entries {
		if w.Wants(entries[i].BusinessType) {
			next = &entries[i]
			break
		}
	}
	if next == nil {
		if len(entries) == 0 {
			sleep(ctx, d.cfg.PollInterval)
			return false, nil
		}
		err := callStoreErr(ctx, func(ctx context.Context) error {
			return d.cfg.Store.WebhookSkip(ctx, store.WebhookSkipParams{ID: id, Generation: w.Generation, Cursor: w.Cursor, To: entries[len(entries)-1].Seq})
		})
		if errors.Is(err, store.ErrWebhookMoved) {
			return false, nil
		}
		return false, err
	}
	attempt := w.Failures + 1
	if attempt > 1 {
		sleep(ctx, d.backoff(w.Failures))
		if ctx.Err() != nil {
			return true, nil
		}
		// Redelivered or disabled while waiting: start over from the
		// endpoint as it is, rather than send what is no longer due.
		now, err := callStore(ctx, func(ctx context.Context) (stockd.Webhook, error) { return d.cfg.Store.WebhookGet(ctx, id) })
		if err != nil || now.Disabled() || now.Generation != w.Generation || now.Cursor != w.Cursor {
			return false, err
		}
	}
	delivery := d.deliver(ctx, w, secret, *next, attempt)
	if ctx.Err() != nil && !delivery.OK {
		return true, nil // shutting down: not the endpoint's failure
	}
	after, err := callStore(ctx, func(ctx context.Context) (stockd.Webhook, error) {
		return d.cfg.Store.WebhookAttempt(ctx, store.WebhookAttemptParams{
			Delivery: delivery, Generation: w.Generation, Cursor: w.Cursor, FailuresMax: d.cfg.FailuresMax,
		})
	})
	switch {
	case errors.Is(err, store.ErrWebhookMoved):
		d.metrics.deliveries.WithLabelValues(outcomeStale).Inc()
		return false, nil
	case err != nil:
		return false, err
	case delivery.OK:
		d.metrics.deliveries.WithLabelValues(outcomeDelivered).Inc()
	default:
		d.metrics.deliveries.WithLabelValues(outcomeFailed).Inc()
	}
	if after.Disabled() {
		d.metrics.disabled.Inc()
		d.log.Warn("webhook disabled", "webhook", id, "reason", after.DisabledReason)
		return true, nil
	}
	return false, nil
}

// backoff is the wait before the retry that follows failures consecutive
// failures: uniformly random up to BackoffBase doubled per failure after
// the first, capped at BackoffMax (full jitter, so that many endpoints
// failing together do not retry together).
func (d *Dispatcher) backoff(failures int) time.Duration {
	ceiling := d.cfg.BackoffMax
	if shift := failures - 1; shift < 30 {
		ceiling = min(d.cfg.BackoffBase<<shift, d.cfg.BackoffMax)
	}
	return rand.N(ceiling + 1)
}

// deliver posts one event and says how it went.
func (d *Dispatcher) deliver(ctx context.Context, w stockd.Webhook, secret []byte, e stockd.LedgerEntry, attempt int) stockd.WebhookDelivery {
	start := d.cfg.Now()
	out := stockd.WebhookDelivery{WebhookID: w.ID, Seq: e.Seq, Attempt: attempt, At: start.UTC()}
	status, err := d.post(ctx, w.URL, secret, e)
	out.Duration = max(d.cfg.Now().Sub(start), 0)
	out.Status = status
	switch {
	case err != nil:
		out.Error = err.Error()
	case status < 200 || status > 299:
		out.Error = "answered " + strconv.Itoa(status)
	default:
		out.OK = true
	}
	return out
}

func (d *Dispatcher) post(ctx context.Context, url string, secret []byte, e stockd.LedgerEntry) (int, error) {
	body, err := d.body(e)
	if err != nil {
		return 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, d.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("request: %w", err)
	}
	timestamp := webhook.Timestamp(d.cfg.Now())
	req.Header.Set("Content-Type", ContentType)
	req.Header.Set(webhook.HeaderTimestamp, timestamp)
	req.Header.Set(webhook.HeaderSignature, webhook.Sign(secret, timestamp, body))
	resp, err := d.cfg.Client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	// Read a little of the answer so the connection can be reused.
	if _, err := io.Copy(io.Discard, io.LimitReader(resp.Body, responseBodyMax)); err != nil {
		return resp.StatusCode, fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, nil
}

// body is e as a structured CloudEvent.
func (d *Dispatcher) body(e stockd.LedgerEntry) ([]byte, error) {
	data, err := d.cfg.Encode(e)
	if err != nil {
		return nil, fmt.Errorf("encode event %d: %w", e.Seq, err)
	}
	return json.Marshal(Event{
		SpecVersion:     "1.0",
		ID:              d.cfg.Environment + ":" + strconv.FormatInt(e.Seq, 10),
		Source:          "/stockd/" + d.cfg.Environment,
		Type:            TypePrefix + e.BusinessType,
		Time:            e.CreatedAt.UTC(),
		Subject:         e.Position.SKU,
		DataContentType: "application/json",
		Data:            data,
	})
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// callStore runs one database call under storeTimeout.
func callStore[T any](ctx context.Context, fn func(context.Context) (T, error)) (T, error) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	return fn(ctx)
}

func callStoreErr(ctx context.Context, fn func(context.Context) error) error {
	_, err := callStore(ctx, func(ctx context.Context) (struct{}, error) { return struct{}{}, fn(ctx) })
	return err
}
