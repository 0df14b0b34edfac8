package sqlite

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Collector exposes both connection pools (go_sql_* series, labelled
// db_name sqlite_writer and sqlite_reader): a writer whose one connection
// is always in use, with waits growing, is where batches queue.
func (s *Store) Collector() prometheus.Collector {
	return multiCollector{
		collectors.NewDBStatsCollector(s.writer, "sqlite_writer"),
		collectors.NewDBStatsCollector(s.reader, "sqlite_reader"),
	}
}

type multiCollector []prometheus.Collector

func (m multiCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, c := range m {
		c.Describe(ch)
	}
}

func (m multiCollector) Collect(ch chan<- prometheus.Metric) {
	for _, c := range m {
		c.Collect(ch)
	}
}
