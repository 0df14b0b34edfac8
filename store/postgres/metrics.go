package postgres

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
)

// Collector exposes the connection pool's state: a pool whose connections
// are all acquired, or whose acquires wait, is where requests queue before
// the database sees them.
func (s *Store) Collector() prometheus.Collector { return poolCollector{pool: s.pool} }

type poolCollector struct{ pool *pgxpool.Pool }

var (
	poolConnections = prometheus.NewDesc("stockd_db_pool_connections",
		"PostgreSQL pool connections by state (acquired, idle, constructing).", []string{"state"}, nil)
	poolConnectionsMax = prometheus.NewDesc("stockd_db_pool_connections_max",
		"The PostgreSQL pool's connection cap.", nil, nil)
	poolAcquires = prometheus.NewDesc("stockd_db_pool_acquires_total",
		"Connections acquired from the PostgreSQL pool.", nil, nil)
	poolAcquiresWaited = prometheus.NewDesc("stockd_db_pool_acquires_waited_total",
		"Acquires that waited because no connection was idle.", nil, nil)
	poolAcquireSeconds = prometheus.NewDesc("stockd_db_pool_acquire_seconds_total",
		"Time spent acquiring connections from the PostgreSQL pool.", nil, nil)
)

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolConnections, poolConnectionsMax, poolAcquires, poolAcquiresWaited, poolAcquireSeconds} {
		ch <- d
	}
}

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolConnections, prometheus.GaugeValue, float64(st.AcquiredConns()), "acquired")
	ch <- prometheus.MustNewConstMetric(poolConnections, prometheus.GaugeValue, float64(st.IdleConns()), "idle")
	ch <- prometheus.MustNewConstMetric(poolConnections, prometheus.GaugeValue, float64(st.ConstructingConns()), "constructing")
	ch <- prometheus.MustNewConstMetric(poolConnectionsMax, prometheus.GaugeValue, float64(st.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, prometheus.CounterValue, float64(st.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolAcquiresWaited, prometheus.CounterValue, float64(st.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolAcquireSeconds, prometheus.CounterValue, st.AcquireDuration().Seconds())
}
