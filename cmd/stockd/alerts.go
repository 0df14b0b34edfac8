package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/pflag"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/alert"
	"github.com/stockd/stockd/replenish/evaluate"
)

const (
	alertDailyAtDefault  = "08:00"
	alertDebounceDefault = 5 * time.Second
	alertIntervalDefault = time.Second
)

// bindAlertFlags adds the alert worker's flags to serve (--environment,
// which the relay shares, is bindServeFlags').
func bindAlertFlags(fs *pflag.FlagSet, c *Config) {
	fs.StringVar(&c.AlertSinks, "alert-sinks", "", "JSON file of alert sinks (webhook, slack, log), each bound to one environment; see docs/operations.md (env STOCKD_ALERT_SINKS)")
	fs.StringVar(&c.AlertDailyAt, "alert-daily-at", alertDailyAtDefault, "local time HH:MM, in --business-time-zone, of the daily job that evaluates every SKU and sends the digest (env STOCKD_ALERT_DAILY_AT)")
	fs.DurationVar(&c.AlertDebounce, "alert-debounce", alertDebounceDefault, "how long a SKU's stock must stay unchanged before its alert is evaluated (env STOCKD_ALERT_DEBOUNCE)")
	fs.DurationVar(&c.AlertInterval, "alert-interval", alertIntervalDefault, "how often the alert worker follows the ledger (env STOCKD_ALERT_INTERVAL)")
}

// validateAlerts refuses sinks without an environment before anything
// starts (seed 003 §6: alerts of a test run once reached production).
func (c *Config) validateAlerts() error {
	if c.AlertSinks != "" && c.Environment == "" {
		return fmt.Errorf("refusing to start: %w", alert.ErrNoEnvironment)
	}
	if _, err := dailyAt(c.AlertDailyAt); err != nil {
		return err
	}
	if c.AlertDebounce < 0 || c.AlertDebounce > time.Hour || c.AlertInterval < 0 || c.AlertInterval > time.Minute {
		return fmt.Errorf("alert debounce %v and interval %v: want at most 1h and 1m", c.AlertDebounce, c.AlertInterval)
	}
	return nil
}

// dailyAt reads HH:MM as an offset from midnight; empty is the default.
func dailyAt(s string) (time.Duration, error) {
	if s == "" {
		s = alertDailyAtDefault
	}
	t, err := time.Parse("15:04", s)
	if err != nil {
		return 0, fmt.Errorf("alert daily at %q: want HH:MM", s)
	}
	return time.Duration(t.Hour())*time.Hour + time.Duration(t.Minute())*time.Minute, nil
}

// alerts is the alert worker and its notifier.
type alerts struct {
	worker   *alert.Worker
	notifier *alert.Notifier
}

// startAlerts starts the alert worker over the replenishment evaluation
// the API answers with, so an alert's figures are the API's.
func (m *Main) startAlerts(zone *time.Location, reg prometheus.Registerer) (*alerts, error) {
	var sinks []alert.Sink
	if m.Config.AlertSinks != "" {
		f, err := os.Open(m.Config.AlertSinks)
		if err != nil {
			return nil, fmt.Errorf("alert sinks: %w", err)
		}
		sinks, err = alert.ParseSinks(f, os.Getenv, m.Logger)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	}
	metrics := alert.NewMetrics(reg)
	notifier, err := alert.NewNotifier(alert.NotifierConfig{Environment: m.Config.Environment, Sinks: sinks, Log: m.store, Logger: m.Logger, Metrics: metrics})
	if err != nil {
		return nil, fmt.Errorf("refusing to start: %w", err)
	}
	at, err := dailyAt(m.Config.AlertDailyAt)
	if err != nil {
		return nil, err
	}
	a := &alerts{notifier: notifier}
	a.worker = alert.New(alert.Config{
		Store: m.store, Evaluate: alert.Evaluator(&evaluate.Evaluator{Store: m.store, Zone: zone}), Notifier: notifier, Zone: zone, DailyAt: at,
		Notify:   func(ctx context.Context, n []stockd.Notice) error { return m.engine.Notify(ctx, "alert", n) },
		Policy:   alert.Policy{TierMax: notifier.TierMax()},
		Debounce: m.Config.AlertDebounce, Interval: m.Config.AlertInterval, Logger: m.Logger, Metrics: metrics,
	})
	notifier.Start()
	a.worker.Start()
	m.Logger.Info("alert worker started", "environment", m.Config.Environment, "sinks", len(sinks), "daily_at", m.Config.AlertDailyAt, "zone", zone.String())
	return a, nil
}

// stop ends the worker, then delivers what it queued.
func (a *alerts) stop() {
	if a == nil {
		return
	}
	a.worker.Stop()
	a.notifier.Stop()
}
