package alert

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the alert worker's and the notifier's counters. A nil
// *Metrics counts nothing.
type Metrics struct {
	evaluations prometheus.Counter
	notices     *prometheus.CounterVec
	attempts    *prometheus.CounterVec
	dropped     prometheus.Counter
}

// NewMetrics registers the alert metrics with reg (which may be nil: then
// they are kept but not exported).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		evaluations: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_alert_evaluations_total", Help: "SKU evaluations by the alert worker.",
		}),
		notices: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_alert_notices_total", Help: "Notices recorded, by kind (sent: to the sinks; digest: held back by open purchase orders).",
		}, []string{"kind"}),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_alert_delivery_attempts_total", Help: "Attempts to deliver a message, by sink and outcome (delivered, failed).",
		}, []string{"sink", "outcome"}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "stockd_alert_messages_dropped_total", Help: "Messages dropped because the delivery queue was full.",
		}),
	}
	if reg != nil {
		reg.MustRegister(m.evaluations, m.notices, m.attempts, m.dropped)
	}
	return m
}

func (m *Metrics) evaluated() {
	if m != nil {
		m.evaluations.Inc()
	}
}

func (m *Metrics) noticed(kind string) {
	if m != nil {
		m.notices.WithLabelValues(kind).Inc()
	}
}

func (m *Metrics) attempted(sink string, delivered bool) {
	if m == nil {
		return
	}
	outcome := "failed"
	if delivered {
		outcome = "delivered"
	}
	m.attempts.WithLabelValues(sink, outcome).Inc()
}

func (m *Metrics) droppedOne() {
	if m != nil {
		m.dropped.Inc()
	}
}
