package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// ReconcileConfig is the schedule of the passes serve runs, and what the
// hour pass allows.
type ReconcileConfig struct {
	Schedule     reconcile.Schedule
	HoldGrace    time.Duration
	UnshippedAge time.Duration
	// RelayLagMax and RelayLagEventsMax bound how far the NATS relay and
	// each enabled webhook may trail the ledger before the hour pass of
	// serve reports relay_lag.
	RelayLagMax       time.Duration
	RelayLagEventsMax int64
}

func bindReconcileFlags(fs *pflag.FlagSet, c *ReconcileConfig) {
	d := reconcile.DefaultSchedule
	fs.DurationVar(&c.Schedule.Minute, "reconcile-minute-interval", d.Minute, "how often the minute pass checks the positions changed since it last ran; 0 is off, else 1s to 1h (env STOCKD_RECONCILE_MINUTE_INTERVAL)")
	fs.DurationVar(&c.Schedule.Hour, "reconcile-hour-interval", d.Hour, "how often the hour pass looks for overdue holds, unshipped orders and overdue approvals; 0 is off, else 1m to 24h (env STOCKD_RECONCILE_HOUR_INTERVAL)")
	fs.DurationVar(&c.Schedule.Day, "reconcile-day-interval", d.Day, "how often the day pass runs the full verify; 0 is off, else 1h to 168h (env STOCKD_RECONCILE_DAY_INTERVAL)")
	bindHourFlags(fs, c)
	fs.DurationVar(&c.RelayLagMax, "reconcile-relay-lag-max", 5*time.Minute, "how old the oldest event the NATS relay or an enabled webhook has not delivered may be before the hour pass reports relay_lag (env STOCKD_RECONCILE_RELAY_LAG_MAX)")
	fs.Int64Var(&c.RelayLagEventsMax, "reconcile-relay-lag-events-max", 100_000, "how many events the NATS relay or an enabled webhook may trail the ledger by before the hour pass reports relay_lag (env STOCKD_RECONCILE_RELAY_LAG_EVENTS_MAX)")
}

func bindHourFlags(fs *pflag.FlagSet, c *ReconcileConfig) {
	fs.DurationVar(&c.HoldGrace, "reconcile-hold-grace", 5*time.Minute, "how long past its deadline a pending hold may wait for the expiry worker before the hour pass reports it (env STOCKD_RECONCILE_HOLD_GRACE)")
	fs.DurationVar(&c.UnshippedAge, "reconcile-unshipped-age", 7*24*time.Hour, "how long a reservation may stay confirmed and unshipped before the hour pass reports it (env STOCKD_RECONCILE_UNSHIPPED_AGE)")
}

func (c ReconcileConfig) validate() error {
	if err := c.Schedule.Check(); err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	if c.HoldGrace < 0 || c.UnshippedAge < 0 {
		return fmt.Errorf("reconcile: hold grace %v and unshipped age %v must not be negative", c.HoldGrace, c.UnshippedAge)
	}
	if c.RelayLagMax < 0 || c.RelayLagEventsMax < 0 {
		return fmt.Errorf("reconcile: relay lag %v and %d events must not be negative", c.RelayLagMax, c.RelayLagEventsMax)
	}
	return nil
}

func (c ReconcileConfig) reconciler(s store.Store, logger *slog.Logger, reg prometheus.Registerer) *reconcile.Reconciler {
	return reconcile.New(c.config(s, logger, reg))
}

func (c ReconcileConfig) config(s store.Store, logger *slog.Logger, reg prometheus.Registerer) reconcile.Config {
	return reconcile.Config{Store: s, HoldGrace: c.HoldGrace, UnshippedAge: c.UnshippedAge,
		RelayLagMax: c.RelayLagMax, RelayLagEventsMax: c.RelayLagEventsMax, Logger: logger, Registerer: reg}
}

// serveReconciler is the reconciler of serve: it checks the lag of the
// relay and the webhooks serve runs, and writes the events of what it
// opens and closes through the engine.
func (m *Main) serveReconciler(reg prometheus.Registerer) *reconcile.Reconciler {
	cfg := m.Config.Reconcile.config(m.store, m.Logger, reg)
	if m.relay != nil {
		cfg.RelayNames = []string{m.relay.relay.Name()}
	}
	cfg.Webhooks = m.webhooks != nil
	cfg.Notify = func(ctx context.Context, n []stockd.Notice) error { return m.engine.Notify(ctx, "reconcile", n) }
	return reconcile.New(cfg)
}

// reconcileLoop runs the scheduled passes of serve until stopped.
type reconcileLoop struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startReconcile(r *reconcile.Reconciler, s reconcile.Schedule) *reconcileLoop {
	ctx, cancel := context.WithCancel(context.Background())
	l := &reconcileLoop{cancel: cancel}
	l.wg.Go(func() { r.Run(ctx, s) })
	return l
}

// Stop ends the loop, cutting a pass in progress short: a pass records
// nothing it did not finish.
func (l *reconcileLoop) Stop() {
	l.cancel()
	l.wg.Wait()
}

func newReconcileCommand() *cobra.Command {
	var cfg Config
	var rc ReconcileConfig
	var pass string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "reconcile",
		Short: "Run one reconciliation pass now and print its findings; records them as discrepancies, changes no stock",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			if err := rc.validate(); err != nil {
				return err
			}
			return runReconcile(cmd.Context(), cfg.DatabaseURL, rc, pass, asJSON, cmd.OutOrStdout())
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	bindHourFlags(cmd.Flags(), &rc)
	cmd.Flags().StringVar(&pass, "pass", stockd.PassMinute, "minute, hour or day")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the runs and findings as JSON")
	return cmd
}

// runReconcile runs one pass, prints what it found, and returns
// errDifferences when it found anything (exit status 2, as verify).
func runReconcile(ctx context.Context, databaseURL string, rc ReconcileConfig, pass string, asJSON bool, out io.Writer) error {
	s, err := storeurl.OpenExisting(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	res, err := rc.reconciler(s, slog.New(slog.DiscardHandler), nil).Pass(ctx, pass)
	if err != nil {
		return fmt.Errorf("reconcile: %w", err)
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return fmt.Errorf("print result: %w", err)
		}
	} else {
		printReconcile(out, pass, res)
	}
	if !res.Clean() {
		return errDifferences
	}
	return nil
}

func printReconcile(out io.Writer, pass string, res reconcile.Result) {
	var positions, opened, closed int
	var runs []int64
	for _, run := range res.Runs {
		positions += run.PositionsChecked
		opened += run.Opened
		closed += run.Closed
		runs = append(runs, run.ID)
	}
	fmt.Fprintf(out, "%s pass: runs %v, checked %d, findings %d, opened %d, closed %d\n",
		pass, runs, positions, len(res.Findings), opened, closed)
	for _, f := range res.Findings {
		at := f.Subject
		if f.Position.SKU != "" {
			at = fmt.Sprintf("%s/%s/%s", f.Position.SKU, f.Position.Location, f.Position.Pool)
		}
		fmt.Fprintf(out, "%s %s: expected %+v, actual %+v: %s\n", f.Kind, at, f.Expected, f.Actual, f.Evidence)
	}
}
