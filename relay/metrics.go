package relay

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics carry no labels: one relay per process.
type metrics struct {
	leader     prometheus.Gauge
	published  prometheus.Counter
	duplicates prometheus.Counter
	failures   prometheus.Counter
}

func newMetrics(reg prometheus.Registerer, status func() Status) (*metrics, error) {
	m := &metrics{
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "stockd_relay_leader", Help: "1 while this process holds the relay's lease and publishes.",
		}),
		published: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_relay_published_total", Help: "Events JetStream acknowledged from this process.",
		}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_relay_duplicates_total", Help: "Events JetStream acknowledged as duplicates of ones it held (a takeover or a retry).",
		}),
		failures: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_relay_failures_total", Help: "Times the relay stopped on a failure of NATS or the database and backed off.",
		}),
	}
	if reg == nil {
		return m, nil
	}
	lagEvents := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "stockd_relay_lag_events", Help: "The ledger's last seq minus the relay's cursor: events not yet published.",
	}, func() float64 { return float64(status().LagEvents) })
	lagSeconds := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "stockd_relay_lag_seconds", Help: "Age of the oldest event not yet published, 0 when none.",
	}, func() float64 { return status().LagSeconds })
	for _, c := range []prometheus.Collector{m.leader, m.published, m.duplicates, m.failures, lagEvents, lagSeconds} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("relay: register metrics: %w", err)
		}
	}
	return m, nil
}
