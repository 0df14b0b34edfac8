package alert

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The levels stockd_alerts_open exposes: the levels an open alert can
// have (replenish.Level's, ok aside, which never opens one), each from
// the start at 0, and OpenLevelOther for any level the store holds that
// this code does not know, so that the label set stays fixed whatever
// the table holds.
var OpenLevels = []string{"stockout", "critical", "warning", "slow_moving", OpenLevelOther}

// OpenLevelOther gathers the open alerts of levels not in OpenLevels.
const OpenLevelOther = "other"

const (
	// openReadEveryDefault is OpenCollectorConfig.ReadEvery's default: a
	// scrape every few seconds costs one GROUP BY per 15 s at most.
	openReadEveryDefault = 15 * time.Second
	// openReadTimeout bounds the read behind a scrape, so that a stalled
	// database delays /metrics by this much at most.
	openReadTimeout = 2 * time.Second
)

// OpenCounter counts the open alerts by level; store.Store is one.
type OpenCounter interface {
	AlertOpenCounts(ctx context.Context) (map[string]int64, error)
}

// OpenCollectorConfig configures an OpenCollector.
type OpenCollectorConfig struct {
	// Store is read for the counts. Required.
	Store OpenCounter
	// ReadEvery is the least time between two reads of the store; scrapes
	// in between expose the last counts. Defaults to 15 seconds.
	ReadEvery time.Duration
	// Now defaults to time.Now.
	Now func() time.Time
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// OpenCollector exposes stockd_alerts_open{level}, counted from the store
// when scraped, at most once per ReadEvery. It counts what the table
// holds, not what one worker saw, so it is right on every replica and
// whether or not this process runs the alert worker.
type OpenCollector struct {
	cfg  OpenCollectorConfig
	desc *prometheus.Desc

	mu sync.Mutex
	// readAt is when the store was last asked (answered or not), so that a
	// failing database is not asked at every scrape either.
	readAt time.Time
	// counts are the last counts read, by exposed level; nil before the
	// first answer, and then nothing is exposed rather than zeros that
	// would claim no alert is open.
	counts map[string]float64
}

// NewOpenCollector returns the collector; register it with a registry.
func NewOpenCollector(cfg OpenCollectorConfig) *OpenCollector {
	if cfg.Store == nil {
		panic("alert: OpenCollectorConfig.Store is required")
	}
	if cfg.ReadEvery <= 0 {
		cfg.ReadEvery = openReadEveryDefault
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return &OpenCollector{cfg: cfg, desc: prometheus.NewDesc("stockd_alerts_open",
		"Open alerts by level (stockout, critical, warning, slow_moving; other for a level this version does not know), counted from the store at most every 15 s.",
		[]string{"level"}, nil)}
}

// Describe implements prometheus.Collector.
func (c *OpenCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

// Collect implements prometheus.Collector.
func (c *OpenCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now := c.cfg.Now(); c.readAt.IsZero() || now.Sub(c.readAt) >= c.cfg.ReadEvery {
		c.readAt = now
		c.read()
	}
	if c.counts == nil {
		return
	}
	for _, level := range OpenLevels {
		ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, c.counts[level], level)
	}
}

// read replaces the counts with the store's, keeping the last ones when
// the store does not answer. Lock should be held.
func (c *OpenCollector) read() {
	ctx, cancel := context.WithTimeout(context.Background(), openReadTimeout)
	defer cancel()
	byLevel, err := c.cfg.Store.AlertOpenCounts(ctx)
	if err != nil {
		c.cfg.Logger.Warn("count open alerts for metrics", "err", err)
		return
	}
	counts := make(map[string]float64, len(OpenLevels))
	for _, level := range OpenLevels {
		counts[level] = 0
	}
	for level, n := range byLevel {
		if !slices.Contains(OpenLevels, level) {
			level = OpenLevelOther
		}
		counts[level] += float64(n)
	}
	c.counts = counts
}
