package alert

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/stockd/stockd"
)

// Sink is one destination of messages: a webhook, a Slack channel, the
// log. Each is bound to one environment and one contact tier.
type Sink interface {
	Name() string
	// Environment is the deployment environment the sink belongs to; a
	// notifier of another environment never sends to it.
	Environment() string
	// Tier is the first contact tier the sink hears from: a message of
	// tier t goes to the sinks of tiers 0 to t.
	Tier() int
	// Send delivers one message once and returns the receiver's HTTP status
	// (0 when there was none). An error wrapping ErrPermanent is not
	// retried.
	Send(ctx context.Context, m Message) (int, error)
}

// ErrPermanent marks a delivery the receiver refused for good (a 4xx
// other than 408 and 429): the same message would be refused again.
var ErrPermanent = errors.New("receiver refused the message")

// DeliveryLog stores every attempt; store.Store has it.
type DeliveryLog interface {
	AlertDeliveryInsert(ctx context.Context, d stockd.AlertDelivery) error
}

// NotifierConfig configures a Notifier. Zero values mean the documented
// default.
type NotifierConfig struct {
	// Environment is the deployment's environment tag, carried by every
	// message; required when there are sinks.
	Environment string
	Sinks       []Sink
	Log         DeliveryLog
	// AttemptsMax bounds the attempts of one message to one sink. Defaults
	// to 5.
	AttemptsMax int
	// BackoffBase is the wait before the second attempt; each later one
	// doubles it, up to BackoffMax, with full jitter. Defaults to 1 second
	// and 1 minute.
	BackoffBase time.Duration
	BackoffMax  time.Duration
	// AttemptTimeout bounds one attempt. Defaults to 10 seconds.
	AttemptTimeout time.Duration
	// QueueMax bounds the messages waiting for delivery; beyond it a
	// message is logged and dropped. Defaults to 1024.
	QueueMax int
	// StopGrace bounds how long Stop waits for queued deliveries. Defaults
	// to 10 seconds.
	StopGrace time.Duration
	Now       func() time.Time
	Logger    *slog.Logger
	// Metrics may be nil.
	Metrics *Metrics
}

const (
	attemptsMaxDefault    = 5
	backoffBaseDefault    = time.Second
	backoffMaxDefault     = time.Minute
	attemptTimeoutDefault = 10 * time.Second
	queueMaxDefault       = 1024
	stopGraceDefault      = 10 * time.Second
)

// ErrNoEnvironment is NewNotifier's refusal of sinks without an
// environment tag.
var ErrNoEnvironment = errors.New("alert sinks need the deployment's environment (--environment)")

// Notifier delivers messages to the sinks of its environment, retrying
// with exponential backoff and jitter, and logs every attempt.
type Notifier struct {
	cfg   NotifierConfig
	queue chan Message
	// ctx ends the deliveries still retrying when Stop's grace runs out.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// NewNotifier checks cfg: sinks need an environment, and a sink of another
// environment is logged at start (and never sent to).
func NewNotifier(cfg NotifierConfig) (*Notifier, error) {
	if len(cfg.Sinks) > 0 && cfg.Environment == "" {
		return nil, ErrNoEnvironment
	}
	if cfg.AttemptsMax <= 0 {
		cfg.AttemptsMax = attemptsMaxDefault
	}
	if cfg.BackoffBase <= 0 {
		cfg.BackoffBase = backoffBaseDefault
	}
	if cfg.BackoffMax <= 0 {
		cfg.BackoffMax = backoffMaxDefault
	}
	if cfg.AttemptTimeout <= 0 {
		cfg.AttemptTimeout = attemptTimeoutDefault
	}
	if cfg.QueueMax <= 0 {
		cfg.QueueMax = queueMaxDefault
	}
	if cfg.StopGrace <= 0 {
		cfg.StopGrace = stopGraceDefault
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	for _, s := range cfg.Sinks {
		if s.Environment() != cfg.Environment {
			cfg.Logger.Warn("alert sink of another environment: never sent to",
				"sink", s.Name(), "sink_environment", s.Environment(), "environment", cfg.Environment)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Notifier{cfg: cfg, queue: make(chan Message, cfg.QueueMax), ctx: ctx, cancel: cancel}, nil
}

// TierMax is the highest tier of the notifier's sinks: escalation past it
// would reach no one new.
func (n *Notifier) TierMax() int {
	tierMax := 0
	for _, s := range n.cfg.Sinks {
		if s.Environment() == n.cfg.Environment {
			tierMax = max(tierMax, s.Tier())
		}
	}
	return tierMax
}

// Start delivers queued messages in the background until Stop.
func (n *Notifier) Start() {
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		for m := range n.queue {
			n.Deliver(n.ctx, m)
		}
	}()
}

// Stop delivers what is queued and returns; after StopGrace, deliveries
// still retrying are abandoned (their attempts stay in the log).
func (n *Notifier) Stop() {
	n.once.Do(func() { close(n.queue) })
	done := make(chan struct{})
	go func() { n.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(n.cfg.StopGrace):
		n.cancel()
		<-done
	}
	n.cancel()
}

// Enqueue queues m without waiting; a full queue drops it with an error in
// the log (the alert record and its notice stay, for the API to show).
func (n *Notifier) Enqueue(m Message) {
	select {
	case n.queue <- m:
	default:
		n.cfg.Metrics.droppedOne()
		n.cfg.Logger.Error("alert delivery queue full: message dropped", "delivery_id", m.DeliveryID, "queue_max", n.cfg.QueueMax)
	}
}

// Deliver sends m to every sink of the notifier's environment whose tier
// it reaches, and returns whether every one of them took it.
func (n *Notifier) Deliver(ctx context.Context, m Message) bool {
	m.Environment = n.cfg.Environment
	m.Text = m.text()
	if m.At.IsZero() {
		m.At = n.cfg.Now().UTC()
	}
	all := true
	for _, s := range n.cfg.Sinks {
		// Checked on every message, not only at start: nothing reaches a
		// sink of another environment, whatever built the list.
		if s.Environment() != n.cfg.Environment || m.Tier < s.Tier() {
			continue
		}
		all = n.deliverTo(ctx, s, m) && all
	}
	return all
}

func (n *Notifier) deliverTo(ctx context.Context, s Sink, m Message) bool {
	for attempt := 1; attempt <= n.cfg.AttemptsMax; attempt++ {
		actx, cancel := context.WithTimeout(ctx, n.cfg.AttemptTimeout)
		status, err := s.Send(actx, m)
		cancel()
		d := stockd.AlertDelivery{AlertID: m.AlertID, Sink: s.Name(), Attempt: attempt, At: n.cfg.Now().UTC().Truncate(time.Microsecond), StatusCode: status, Delivered: err == nil}
		if err != nil {
			d.Error = errorText(err)
		}
		n.cfg.Metrics.attempted(s.Name(), err == nil)
		if n.cfg.Log != nil {
			if logErr := n.cfg.Log.AlertDeliveryInsert(ctx, d); logErr != nil {
				n.cfg.Logger.Error("alert delivery log write failed", "err", logErr)
			}
		}
		if err == nil {
			return true
		}
		n.cfg.Logger.Warn("alert delivery failed", "sink", s.Name(), "attempt", attempt, "status", status, "err", err)
		if errors.Is(err, ErrPermanent) || attempt == n.cfg.AttemptsMax {
			break
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(n.backoff(attempt)):
		}
	}
	n.cfg.Logger.Error("alert delivery gave up", "sink", s.Name(), "delivery_id", m.DeliveryID)
	return false
}

// backoff is the wait after attempt: a random point in the upper half of
// an exponentially growing window ("equal jitter"), so that senders do not
// retry in step and a receiver back from an outage is not hit by all of
// them at once, while each still waits at least half the window.
func (n *Notifier) backoff(attempt int) time.Duration {
	window := n.cfg.BackoffBase << min(attempt-1, 30)
	if window <= 0 || window > n.cfg.BackoffMax {
		window = n.cfg.BackoffMax
	}
	return window/2 + rand.N(window/2+1)
}

// errorTextMax bounds the error text of a delivery log row.
const errorTextMax = 200

func errorText(err error) string {
	s := err.Error()
	if len(s) > errorTextMax {
		s = strings.ToValidUTF8(s[:errorTextMax], "")
	}
	return s
}

// statusError classifies a receiver's non-2xx answer.
func statusError(status int) error {
	err := fmt.Errorf("receiver answered %d", status)
	if status >= 400 && status < 500 && status != 408 && status != 429 {
		return fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	return err
}
