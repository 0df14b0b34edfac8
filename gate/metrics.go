package gate

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Steps of giving units back to the gate, as stockd_gate_return_failures_total
// labels them: each is retried, and alerted, on its own.
const (
	// stepDatabase: the returner could not read the ledger or move its
	// cursor (the release itself is the database's, answered to its
	// caller).
	stepDatabase = "database"
	// stepRedis: the returner could not add returned units in Redis.
	stepRedis = "redis"
	// stepShut: a closed campaign's gate could not be shut; the keeper
	// shuts it again.
	stepShut = "shut"
)

type metrics struct {
	returnFailures *prometheus.CounterVec
	returned       prometheus.Counter
	exceptions     prometheus.Counter
	leader         prometheus.Gauge
	collectors     []prometheus.Collector
}

func newMetrics(status func() ReturnerStatus) *metrics {
	m := &metrics{
		returnFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_gate_return_failures_total",
			Help: "Failed attempts to give units back to the gate, by step (database, redis, shut); each is retried.",
		}, []string{"step"}),
		returned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_gate_returned_units_total",
			Help: "Units of releases, expiries and refunds the returner added back to the gate's Redis.",
		}),
		exceptions: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_gate_exceptions_total",
			Help: "Wins of the gate the database refused (gate_oversell records) recorded by this process.",
		}),
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "stockd_gate_returner_leader",
			Help: "1 while this process holds the gate-return lease and returns units to the gate.",
		}),
	}
	for _, step := range []string{stepDatabase, stepRedis, stepShut} {
		m.returnFailures.WithLabelValues(step)
	}
	lagEntries := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "stockd_gate_return_lag_entries",
		Help: "The ledger's last seq minus the returner's cursor, on the process that leads it: entries not yet examined.",
	}, func() float64 { return float64(status().LagEntries) })
	lagSeconds := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "stockd_gate_return_lag_seconds",
		Help: "Age of the oldest ledger entry the returner has not examined, 0 when none or when this process does not lead.",
	}, func() float64 { return status().LagSeconds })
	m.collectors = []prometheus.Collector{m.returnFailures, m.returned, m.exceptions, m.leader, lagEntries, lagSeconds}
	return m
}

func (m *metrics) register(reg prometheus.Registerer) error {
	for _, c := range m.collectors {
		if err := reg.Register(c); err != nil {
			return fmt.Errorf("gate: register metrics: %w", err)
		}
	}
	return nil
}
