package engine

import (
	"errors"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd/store"
)

// The causes of stockd_batch_retries_total: a fixed set, every one exposed
// from the start at 0, so that a rule's rate() has a series before the
// first retry and the label never grows with what a database says.
const (
	// RetryCauseSerialization, RetryCauseDeadlock, RetryCauseBusy and
	// RetryCauseUniqueKey are the conflicts a backend names (store.ErrRetry
	// with store.ErrSerialization, ErrDeadlock, ErrBusy or ErrUniqueKey);
	// RetryCauseOther a conflict it does not name.
	RetryCauseSerialization = "serialization"
	RetryCauseDeadlock      = "deadlock"
	RetryCauseBusy          = "busy"
	RetryCauseUniqueKey     = "unique_key"
	RetryCauseOther         = "other"
	// RetryCauseSplit is a batch applied again in halves after the
	// database refused a write (store.ErrRejected) or writing panicked.
	RetryCauseSplit = "split"
	// RetryCausePanic is a batch applied again without the command whose
	// decision panicked.
	RetryCausePanic = "panic"
)

// RetryCauses lists every cause, in the order the metric exposes them.
var RetryCauses = []string{RetryCauseSerialization, RetryCauseDeadlock, RetryCauseBusy, RetryCauseUniqueKey, RetryCauseOther, RetryCauseSplit, RetryCausePanic}

// RetryCauseOf names the cause of a conflict err (which wraps store.ErrRetry),
// one of RetryCauses.
func RetryCauseOf(err error) string {
	switch {
	case errors.Is(err, store.ErrSerialization):
		return RetryCauseSerialization
	case errors.Is(err, store.ErrDeadlock):
		return RetryCauseDeadlock
	case errors.Is(err, store.ErrBusy):
		return RetryCauseBusy
	case errors.Is(err, store.ErrUniqueKey):
		return RetryCauseUniqueKey
	}
	return RetryCauseOther
}

// Metrics observes batches. A nil *Metrics observes nothing.
type Metrics struct {
	batchSize       prometheus.Histogram
	batchDuration   prometheus.Histogram
	batchFailures   prometheus.Counter
	batchRetries    *prometheus.CounterVec
	overloadedTotal prometheus.Counter
	soldOutTotal    prometheus.Counter
	incidentsTotal  prometheus.Counter
	splitsTotal     prometheus.Counter
	halted          prometheus.Gauge
	lockDuration    prometheus.Histogram
	refusalsTotal   prometheus.Counter
	// queueLength reads the engine's queue for the queue depth gauge.
	queueLength atomic.Pointer[func() int]
}

// NewMetrics registers the engine's metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		batchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "stockd_batch_commands", Help: "Commands per applied batch.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 11),
		}),
		batchDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "stockd_batch_duration_seconds", Help: "Time to apply and commit one batch.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}),
		batchFailures: prometheus.NewCounter(prometheus.CounterOpts{Name: "stockd_batch_failures_total", Help: "Batches that failed after retries."}),
		batchRetries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "stockd_batch_retries_total",
			Help: "Batches applied again, by cause: a conflict the database detected (serialization, deadlock, busy, unique_key, other), a split in halves to isolate a refused write (split), or a re-run without a command whose decision panicked (panic)."},
			[]string{"cause"}),
		overloadedTotal: prometheus.NewCounter(prometheus.CounterOpts{Name: "stockd_overloaded_total", Help: "Commands refused because the queue was full."}),
		soldOutTotal:    prometheus.NewCounter(prometheus.CounterOpts{Name: "stockd_sold_out_answers_total", Help: "Reservations refused from sold-out knowledge, without a transaction."}),
		incidentsTotal: prometheus.NewCounter(prometheus.CounterOpts{Name: "stockd_engine_incidents_total",
			Help: "Commands failed on their own, by a panic or data the database refused; the rest of their batch was applied."}),
		splitsTotal: prometheus.NewCounter(prometheus.CounterOpts{Name: "stockd_batch_splits_total",
			Help: "Batches split in halves to isolate a command the database refused."}),
		halted: prometheus.NewGauge(prometheus.GaugeOpts{Name: "stockd_engine_halted",
			Help: "1 once the engine stopped on a broken invariant of the books."}),
		lockDuration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "stockd_batch_lock_seconds", Help: "Time to lock and read one batch's rows, waiting for other transactions' locks included.",
			Buckets: prometheus.ExponentialBuckets(0.00005, 2, 16),
		}),
		refusalsTotal: prometheus.NewCounter(prometheus.CounterOpts{Name: "stockd_database_refusals_total",
			Help: "Commands whose write the database refused (a CHECK such as no negative counter): its last line of defence caught what the decision let through. Must stay 0."}),
	}
	for _, cause := range RetryCauses {
		m.batchRetries.WithLabelValues(cause)
	}
	queued := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "stockd_engine_queue_length",
		Help: "Commands queued for a batch, not yet applied."}, func() float64 {
		if f := m.queueLength.Load(); f != nil {
			return float64((*f)())
		}
		return 0
	})
	reg.MustRegister(m.batchSize, m.batchDuration, m.batchFailures, m.batchRetries, m.overloadedTotal, m.soldOutTotal,
		m.incidentsTotal, m.splitsTotal, m.halted, m.lockDuration, m.refusalsTotal, queued)
	return m
}

// watchQueue makes the queue depth gauge read length.
func (m *Metrics) watchQueue(length func() int) {
	if m != nil {
		m.queueLength.Store(&length)
	}
}

func (m *Metrics) locked(d time.Duration) {
	if m != nil {
		m.lockDuration.Observe(d.Seconds())
	}
}

func (m *Metrics) refused() {
	if m != nil {
		m.refusalsTotal.Inc()
	}
}

func (m *Metrics) batch(size int, d time.Duration, err error) {
	if m == nil {
		return
	}
	m.batchSize.Observe(float64(size))
	m.batchDuration.Observe(d.Seconds())
	if err != nil {
		m.batchFailures.Inc()
	}
}

// retried counts one batch applied again for cause, one of RetryCauses.
func (m *Metrics) retried(cause string) {
	if m != nil {
		m.batchRetries.WithLabelValues(cause).Inc()
	}
}

func (m *Metrics) overloaded() {
	if m != nil {
		m.overloadedTotal.Inc()
	}
}

func (m *Metrics) soldOutAnswered() {
	if m != nil {
		m.soldOutTotal.Inc()
	}
}

func (m *Metrics) incidentRecorded() {
	if m != nil {
		m.incidentsTotal.Inc()
	}
}

func (m *Metrics) split() {
	if m != nil {
		m.splitsTotal.Inc()
	}
}

func (m *Metrics) haltedSet() {
	if m != nil {
		m.halted.Set(1)
	}
}
