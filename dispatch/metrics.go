package dispatch

import (
	"fmt"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of an attempt, the one label: never the URL or the endpoint id,
// whose count the API bounds but an operator's dashboards should not
// follow.
const (
	outcomeDelivered = "delivered"
	outcomeFailed    = "failed"
	// outcomeStale is an attempt made while the endpoint was redelivered
	// or disabled: logged, its answer not acted on.
	outcomeStale = "stale"
)

type metrics struct {
	leader     prometheus.Gauge
	deliveries *prometheus.CounterVec
	disabled   prometheus.Counter
}

func newMetrics(reg prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		leader: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "stockd_webhook_leader", Help: "1 while this process holds the webhook dispatcher's lease and delivers.",
		}),
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_webhook_deliveries_total", Help: "Webhook delivery attempts by outcome: delivered (2xx), failed, stale (the endpoint moved meanwhile).",
		}, []string{"outcome"}),
		disabled: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_webhook_endpoints_disabled_total", Help: "Webhook endpoints disabled after too many consecutive failures.",
		}),
	}
	for _, o := range []string{outcomeDelivered, outcomeFailed, outcomeStale} {
		m.deliveries.WithLabelValues(o)
	}
	if reg == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.leader, m.deliveries, m.disabled} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("dispatch: register metrics: %w", err)
		}
	}
	return m, nil
}
