package httpapi

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// metrics counts requests and their outcomes per operation.
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_http_requests_total",
			Help: "HTTP requests by operation and outcome (ok or the error code).",
		}, []string{"operation", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "stockd_http_request_duration_seconds",
			Help: "Time to answer an HTTP request, by operation.",
			// 100 µs to about 3 s: a batched mutation takes one commit.
			Buckets: prometheus.ExponentialBuckets(0.0001, 2, 16),
		}, []string{"operation"}),
	}
	m.requests = register(reg, m.requests)
	m.duration = register(reg, m.duration)
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

func (m *metrics) observe(operation, code string, d time.Duration) {
	m.requests.WithLabelValues(operation, code).Inc()
	m.duration.WithLabelValues(operation).Observe(d.Seconds())
}
