// Package relay publishes the ledger, the outbox of events, to NATS
// JetStream: every entry at least once, in seq (commit) order, so in order
// per position. It is a thin worker over the storage seam: it reads the
// ledger with store.LedgerList from a cursor kept in the database, which it
// advances only after JetStream acknowledged every event up to it, and it
// publishes only while it holds the relay's lease (store.RelayLeaseTry), so
// that of several replicas one relays at a time.
//
// Every message carries Nats-Msg-Id = EventID(env, seq): after a crash or a
// takeover the new leader publishes again from the cursor, and JetStream
// drops what it already holds within the stream's duplicates window; past
// it, a consumer sees the duplicate with the same id. See docs/design.md,
// "Events out".
package relay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Headers every message carries beside Nats-Msg-Id.
const (
	HeaderSeq  = "Stockd-Seq"
	HeaderType = "Stockd-Event-Type"
)

// Config configures a Relay. Zero values mean the documented default.
type Config struct {
	// Store holds the ledger and the cursor. Required.
	Store store.Store
	// URL is the NATS server (nats://host:port, comma-separated for a
	// cluster). Required.
	URL string
	// Environment tags every subject (stockd.<env>.…) and event id.
	// Required: see ValidEnvironment.
	Environment string
	// Stream is the JetStream stream the relay creates, or checks that it
	// captures stockd.<env>.>. Defaults to STOCKD.
	Stream string
	// Encode turns an entry into the message body; the service passes the
	// form GET /v1/events answers. Required.
	Encode func(stockd.LedgerEntry) ([]byte, error)
	// Name keys the lease and the cursor. Defaults to "nats:" + Stream, so
	// that a new stream is filled from the start of the ledger.
	Name string
	// WindowMax bounds the events in flight, published before their acks
	// arrive, and so the events a takeover may send again. Defaults to 256,
	// at most stockd.PageSizeMax.
	WindowMax int
	// AckTimeout bounds the wait for a window's acks. Defaults to 5 seconds.
	AckTimeout time.Duration
	// PollInterval is the pause between reads of the ledger once caught up.
	// Defaults to 100 milliseconds.
	PollInterval time.Duration
	// StandbyInterval is how often a replica that does not lead asks for
	// the lease, and how often a leader with nothing to publish checks it
	// still holds it. Defaults to 1 second.
	StandbyInterval time.Duration
	// RetryMax caps the backoff after a failure (NATS or the database
	// unreachable). Defaults to 5 seconds.
	RetryMax time.Duration
	// DuplicatesWindow is the duplicates window of a stream the relay
	// creates. Defaults to 2 minutes (JetStream's default).
	DuplicatesWindow time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Registerer receives the relay's metrics. May be nil.
	Registerer prometheus.Registerer
	// Now defaults to time.Now.
	Now func() time.Time
}

// Defaults.
const (
	streamDefault          = "STOCKD"
	windowDefault          = 256
	ackTimeoutDefault      = 5 * time.Second
	pollIntervalDefault    = 100 * time.Millisecond
	standbyIntervalDefault = time.Second
	retryMaxDefault        = 5 * time.Second
	duplicatesDefault      = 2 * time.Minute
	// lagInterval bounds how often the leader measures its lag: a read
	// of the ledger's last seq.
	lagInterval = time.Second
	// storeTimeout bounds each database call of the relay.
	storeTimeout = 5 * time.Second
)

// Relay is the worker. Run it once.
type Relay struct {
	cfg     Config
	log     *slog.Logger
	metrics *metrics

	mu     sync.Mutex
	status Status // guarded by mu
}

// Status is what the relay last knew of itself, for /healthz.
type Status struct {
	// State is leading, standby, failing or stopped.
	State string `json:"state"`
	// Cursor is the last seq JetStream acknowledged (as far as this replica
	// knows).
	Cursor int64 `json:"cursor"`
	// LagEvents is the ledger's last seq minus the cursor: the events not
	// yet published (an upper bound: PostgreSQL's seq may skip values).
	LagEvents int64 `json:"lag_events"`
	// LagSeconds is how old the oldest unpublished event is, 0 when none.
	LagSeconds float64 `json:"lag_seconds"`
	// Error is the last failure while not leading normally.
	Error string `json:"error,omitempty"`
}

// States.
const (
	StateLeading = "leading"
	StateStandby = "standby"
	StateFailing = "failing"
	StateStopped = "stopped"
)

// New checks cfg and returns a Relay.
func New(cfg Config) (*Relay, error) {
	if cfg.Store == nil || cfg.URL == "" || cfg.Encode == nil {
		return nil, errors.New("relay: Store, URL and Encode are required")
	}
	if err := CheckURL(cfg.URL); err != nil {
		return nil, fmt.Errorf("relay: %w", err)
	}
	if !ValidEnvironment(cfg.Environment) {
		return nil, fmt.Errorf("relay: environment %q: want 1-%d characters of [A-Za-z0-9_-]", cfg.Environment, EnvironmentLengthMax)
	}
	if cfg.Stream == "" {
		cfg.Stream = streamDefault
	}
	if !validStreamName(cfg.Stream) {
		return nil, fmt.Errorf("relay: stream name %q: want 1-64 characters, no '.', '*', '>', '/', '\\' or whitespace", cfg.Stream)
	}
	if cfg.Name == "" {
		cfg.Name = "nats:" + cfg.Stream
	}
	if !store.RelayNameValid(cfg.Name) {
		return nil, fmt.Errorf("relay: name %q: want 1-64 printable ASCII characters", cfg.Name)
	}
	if cfg.WindowMax <= 0 {
		cfg.WindowMax = windowDefault
	}
	cfg.WindowMax = min(cfg.WindowMax, stockd.PageSizeMax)
	cfg.AckTimeout = orDefault(cfg.AckTimeout, ackTimeoutDefault)
	cfg.PollInterval = orDefault(cfg.PollInterval, pollIntervalDefault)
	cfg.StandbyInterval = orDefault(cfg.StandbyInterval, standbyIntervalDefault)
	cfg.RetryMax = orDefault(cfg.RetryMax, retryMaxDefault)
	cfg.DuplicatesWindow = orDefault(cfg.DuplicatesWindow, duplicatesDefault)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	r := &Relay{cfg: cfg, log: cfg.Logger.With("relay", cfg.Name), status: Status{State: StateStandby}}
	m, err := newMetrics(cfg.Registerer, r.Status)
	if err != nil {
		return nil, err
	}
	r.metrics = m
	return r, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Name is the relay's name: its lease's and its cursor's key.
func (r *Relay) Name() string { return r.cfg.Name }

// Status returns what the relay last knew.
func (r *Relay) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.status
}

func (r *Relay) setStatus(fn func(*Status)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fn(&r.status)
}

// Run relays until ctx ends: it connects to NATS (retrying while it is
// down), then in turn waits for the lease and publishes while it holds it.
// It returns nil when ctx ends.
func (r *Relay) Run(ctx context.Context) error {
	defer r.setStatus(func(s *Status) { s.State = StateStopped })
	nc, err := nats.Connect(r.cfg.URL,
		nats.Name("stockd relay "+r.cfg.Name),
		// Down at start is like down later: keep trying.
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250*time.Millisecond),
		// No buffering while disconnected: a publish then fails at once,
		// rather than being sent after a reconnect behind an earlier
		// event the broken connection lost (see publishWindow).
		nats.ReconnectBufSize(-1),
	)
	if err != nil {
		return fmt.Errorf("relay: connect to nats: %w", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc,
		jetstream.WithPublishAsyncMaxPending(r.cfg.WindowMax),
		jetstream.WithPublishAsyncTimeout(r.cfg.AckTimeout),
	)
	if err != nil {
		return fmt.Errorf("relay: jetstream: %w", err)
	}
	p := &publisher{relay: r, nc: nc, js: js}
	failures := 0
	for ctx.Err() == nil {
		led, err := p.leadOnce(ctx)
		switch {
		case ctx.Err() != nil:
			return nil
		case err == nil && !led:
			failures = 0
			r.standby(ctx)
			sleep(ctx, r.cfg.StandbyInterval)
		case err != nil:
			failures++
			r.metrics.failures.Inc()
			r.setStatus(func(s *Status) { s.State, s.Error = StateFailing, err.Error() })
			r.log.Warn("relay failing; retrying", "err", err, "failures", failures)
			r.measureStored(ctx)
			sleep(ctx, backoff(failures, r.cfg.RetryMax))
		}
	}
	return nil
}

// backoff doubles from 100 ms up to limit.
func backoff(failures int, limit time.Duration) time.Duration {
	d := 100 * time.Millisecond << min(failures-1, 10)
	return min(d, limit)
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

// standby measures the lag from the cursor another replica writes, so that
// every replica's /healthz and metrics tell how far the relay is.
func (r *Relay) standby(ctx context.Context) {
	r.setStatus(func(s *Status) { s.State, s.Error = StateStandby, "" })
	r.measureStored(ctx)
}

// measureStored measures the lag behind the stored cursor: while standing
// by, and while failing, when the events pile up.
func (r *Relay) measureStored(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, storeTimeout)
	defer cancel()
	cursor, err := r.cfg.Store.RelayCursorGet(ctx, r.cfg.Name)
	if err != nil {
		r.log.Warn("relay: read cursor", "err", err)
		return
	}
	r.measureLag(ctx, cursor)
}

// measureLag records the lag behind cursor.
func (r *Relay) measureLag(ctx context.Context, cursor int64) {
	last, err := r.cfg.Store.LedgerSeqMax(ctx)
	if err != nil {
		r.log.Warn("relay: measure lag", "err", err)
		return
	}
	var age time.Duration
	if last > cursor {
		next, err := r.cfg.Store.LedgerList(ctx, store.LedgerListParams{After: cursor, Limit: 1})
		if err != nil {
			r.log.Warn("relay: measure lag", "err", err)
			return
		}
		if len(next) == 1 {
			age = max(r.cfg.Now().Sub(next[0].CreatedAt), 0)
		}
	}
	r.setStatus(func(s *Status) {
		s.Cursor, s.LagEvents, s.LagSeconds = cursor, max(last-cursor, 0), age.Seconds()
	})
}

// message is an entry as JetStream receives it.
func (r *Relay) message(e stockd.LedgerEntry) (*nats.Msg, error) {
	body, err := r.cfg.Encode(e)
	if err != nil {
		return nil, fmt.Errorf("relay: encode event %d: %w", e.Seq, err)
	}
	m := nats.NewMsg(Subject(r.cfg.Environment, e.BusinessType, e.Position.SKU))
	m.Data = body
	m.Header.Set(jetstream.MsgIDHeader, EventID(r.cfg.Environment, e.Seq))
	m.Header.Set(HeaderSeq, strconv.FormatInt(e.Seq, 10))
	m.Header.Set(HeaderType, e.BusinessType)
	return m, nil
}
