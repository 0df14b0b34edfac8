package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
)

// metrics counts requests and their outcomes per operation. Every label is
// bounded: operations are the fixed route names, codes the fixed error
// codes, outcomes the classes of classOf, pools two classes. No label
// carries a SKU, a key or a path.
type metrics struct {
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	replays      *prometheus.CounterVec
	keyConflicts *prometheus.CounterVec
	reservations *prometheus.CounterVec
	units        *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_http_requests_total",
			Help: "HTTP requests by operation and outcome (ok or the error code).",
		}, []string{"operation", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "stockd_http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by operation and outcome class (won, replayed, insufficient, key_reused, invalid, denied, refused, overloaded, unavailable, internal, cancelled).",
			// 100 µs to about 3 s: a batched mutation takes one commit.
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}, []string{"operation", "outcome"}),
		replays: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_idempotent_replays_total",
			Help: "Mutations answered from a stored answer (Idempotent-Replayed: true): the client retries the server saw, by operation.",
		}, []string{"operation"}),
		keyConflicts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_idempotency_key_conflicts_total",
			Help: "Mutations refused because their idempotency key was used for a different request, by operation.",
		}, []string{"operation"}),
		reservations: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_reservations_total",
			Help: "Reservation requests the engine answered, by outcome (won, insufficient, limit, replayed, refused) and pool class (normal, or pool for campaign and channel pools).",
		}, []string{"outcome", "pool"}),
		units: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_reservation_units_total",
			Help: "Units asked for by reservation requests the engine answered, by outcome and pool class.",
		}, []string{"outcome", "pool"}),
	}
	m.requests = register(reg, m.requests)
	m.duration = register(reg, m.duration)
	m.replays = register(reg, m.replays)
	m.keyConflicts = register(reg, m.keyConflicts)
	m.reservations = register(reg, m.reservations)
	m.units = register(reg, m.units)
	return m
}

// register registers c, or returns the collector already registered under
// its name, so that two servers sharing a registry share their metrics
// instead of panicking.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if err := reg.Register(c); err != nil {
		var already prometheus.AlreadyRegisteredError
		if errors.As(err, &already) {
			if existing, ok := already.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic("httpapi: registering metrics: " + err.Error())
	}
	return c
}

func (m *metrics) observe(operation string, rec *recorder, d time.Duration) {
	outcome := classOf(rec.status, rec.code, rec.replayed)
	m.requests.WithLabelValues(operation, rec.outcome()).Inc()
	m.duration.WithLabelValues(operation, outcome).Observe(d.Seconds())
	switch outcome {
	case classReplayed:
		m.replays.WithLabelValues(operation).Inc()
	case classKeyReused:
		m.keyConflicts.WithLabelValues(operation).Inc()
	}
}

// observeReservation counts one reservation request the engine answered.
func (m *metrics) observeReservation(reserve *stockd.Reserve, res stockd.Result) {
	outcome := "won"
	switch {
	case res.Replayed:
		outcome = classReplayed
	case res.Err == nil:
	case res.Err.Code == stockd.CodeInsufficientStock:
		outcome = classInsufficient
	case res.Err.Code == stockd.CodePurchaseLimitExceeded:
		outcome = "limit"
	default:
		outcome = classRefused
	}
	pool := "normal"
	var units int64
	for _, l := range reserve.Lines {
		units += l.Quantity
		if l.Pool != "" && l.Pool != stockd.PoolDefault {
			pool = "pool"
		}
	}
	m.reservations.WithLabelValues(outcome, pool).Inc()
	if units > 0 {
		m.units.WithLabelValues(outcome, pool).Add(float64(units))
	}
}

// The outcome classes of the latency histogram: few enough to keep every
// operation's series bounded, and the ones an operator tells apart.
const (
	classWon          = "won"
	classReplayed     = "replayed"
	classInsufficient = "insufficient"
	classKeyReused    = "key_reused"
	classInvalid      = "invalid"
	classDenied       = "denied"
	classRefused      = "refused"
	classOverloaded   = "overloaded"
	classUnavailable  = "unavailable"
	classInternal     = "internal"
	classCancelled    = "cancelled"
)

// classOf classes an answer by what it tells an operator: the client's
// mistake (invalid, denied, key_reused), the books' answer (won,
// insufficient, refused), a retry (replayed), or the server's trouble
// (overloaded, unavailable, internal), or the caller gone (cancelled).
func classOf(status int, code string, replayed bool) string {
	switch {
	case replayed:
		return classReplayed
	case status < http.StatusBadRequest:
		return classWon
	}
	switch code {
	case stockd.CodeInsufficientStock:
		return classInsufficient
	case stockd.CodeIdempotencyKeyReused:
		return classKeyReused
	case stockd.CodeOverloaded, stockd.CodeRateLimited:
		return classOverloaded
	case stockd.CodeDatabaseUnavailable, stockd.CodeTimeout, stockd.CodeHalted:
		return classUnavailable
	case stockd.CodeCancelled:
		return classCancelled
	case stockd.CodeUnauthorized, stockd.CodeForbidden, stockd.CodeSelfApproval:
		return classDenied
	}
	switch {
	case status >= http.StatusInternalServerError:
		return classInternal
	case status == http.StatusBadRequest, status == http.StatusNotFound, status == http.StatusMethodNotAllowed,
		status == http.StatusRequestEntityTooLarge, status == http.StatusUnsupportedMediaType, status == http.StatusUnprocessableEntity:
		return classInvalid
	}
	return classRefused
}
