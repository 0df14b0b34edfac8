package reconcile

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
)

// metrics are the reconciliation's. Labels are bounded: kinds come from
// stockd.DiscrepancyKinds and passes from stockd.Passes, never from data.
type metrics struct {
	openByKind *prometheus.GaugeVec
	// exceptionsOpen counts open exceptions (stockd.Exception) by kind,
	// from stockd.ExceptionKinds: refreshed with the discrepancies, as
	// both are records a person works through.
	exceptionsOpen *prometheus.GaugeVec
	runs           *prometheus.CounterVec
	findings       *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) *metrics {
	m := &metrics{
		openByKind: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "stockd_discrepancies_open", Help: "Open discrepancies by kind.",
		}, []string{"kind"}),
		exceptionsOpen: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "stockd_exceptions_open", Help: "Open exceptions (late payments, gate oversells) by kind.",
		}, []string{"kind"}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_reconcile_runs_total", Help: "Reconciliation runs recorded, by pass.",
		}, []string{"pass"}),
		findings: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "stockd_reconcile_findings_total", Help: "Findings of reconciliation runs, by pass.",
		}, []string{"pass"}),
	}
	for _, kind := range stockd.DiscrepancyKinds {
		m.openByKind.WithLabelValues(kind)
	}
	for _, kind := range stockd.ExceptionKinds {
		m.exceptionsOpen.WithLabelValues(kind)
	}
	for _, pass := range stockd.Passes {
		m.runs.WithLabelValues(pass)
		m.findings.WithLabelValues(pass)
	}
	if reg != nil {
		reg.MustRegister(m.openByKind, m.exceptionsOpen, m.runs, m.findings)
	}
	return m
}

func (m *metrics) ran(run stockd.ReconcileRun) {
	m.runs.WithLabelValues(run.Pass).Inc()
	m.findings.WithLabelValues(run.Pass).Add(float64(run.Findings))
}

// open sets every known kind, zero where none is open; a kind the store
// holds that the code does not know is left out rather than growing the
// label set.
func (m *metrics) open(counts map[string]int64) {
	for _, kind := range stockd.DiscrepancyKinds {
		m.openByKind.WithLabelValues(kind).Set(float64(counts[kind]))
	}
}

// exceptions sets every known exception kind, as open does.
func (m *metrics) exceptions(counts map[string]int64) {
	for _, kind := range stockd.ExceptionKinds {
		m.exceptionsOpen.WithLabelValues(kind).Set(float64(counts[kind]))
	}
}
