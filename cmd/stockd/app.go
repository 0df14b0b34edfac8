package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd/alert"
	"github.com/stockd/stockd/dashboard"
	"github.com/stockd/stockd/dispatch"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/expiry"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/relay"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// Main is the running service: the wiring serve uses, and what the
// end-to-end test starts on port 0 against a temporary database.
type Main struct {
	Config Config
	Logger *slog.Logger

	store  store.Store
	engine *engine.Engine
	expiry *expiry.Worker
	// pruner is nil when every idempotency answer is kept.
	pruner   *expiry.Pruner
	relay    *relayRun
	webhooks *dispatchRun
	alerts   *alerts
	gate     *gate.Gate
	redis    *redis.Client
	// stopGate ends the persister and the reconciler; gateDone closes
	// when both returned.
	stopGate context.CancelFunc
	gateDone chan struct{}
	// reconcile is nil when no pass is scheduled.
	reconcile *reconcileLoop
	server    *http.Server
	listener  net.Listener
	// debug is nil without --debug-addr.
	debug  *debugServer
	served chan error
	halted chan error
}

// Run opens and migrates the database, starts the engine, the expiry worker
// and the HTTP server, and returns once the server listens.
func (m *Main) Run(ctx context.Context) (err error) {
	if m.Config.RequestTimeout == 0 {
		m.Config.RequestTimeout = requestTimeoutDefault
	}
	if err := m.Config.validate(); err != nil {
		return err
	}
	if m.Logger == nil {
		return errors.New("main: logger is required")
	}
	defer func() {
		if err != nil {
			m.Close()
		}
	}()
	m.store, err = storeurl.Open(ctx, m.Config.DatabaseURL)
	if err != nil {
		return err
	}
	if dc, ok := m.store.(durabilityChecker); ok {
		if derr := dc.CheckDurability(ctx); derr != nil {
			if !m.Config.AllowUnsafeDurability {
				return fmt.Errorf("refusing to start: %w (--allow-unsafe-durability overrides, for benchmarks only)", derr)
			}
			m.Logger.Warn("running without durable commits: acknowledged reservations can be lost on a crash", "reason", derr)
		}
	}
	if err := m.store.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	requireKeys, err := keysRequired(ctx, m.store, m.Config.Addr, m.Logger)
	if err != nil {
		return err
	}
	zone := time.UTC
	if m.Config.BusinessTimeZone != "" {
		if zone, err = businessZone(m.Config.BusinessTimeZone); err != nil {
			return err
		}
	}
	m.halted = make(chan error, 1)
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if pooled, ok := m.store.(interface{ Collector() prometheus.Collector }); ok {
		reg.MustRegister(pooled.Collector())
	}
	// Counted from the table, so exposed whether or not this process runs
	// the alert worker.
	reg.MustRegister(alert.NewOpenCollector(alert.OpenCollectorConfig{Store: m.store, Logger: m.Logger}))
	m.engine = engine.New(engine.Config{
		Store:        m.store,
		Appliers:     m.appliers(),
		BatchSizeMax: m.Config.BatchSizeMax,
		Logger:       m.Logger,
		Metrics:      engine.NewMetrics(reg),
		OnHalt:       func(err error) { m.halted <- err },
	})
	m.expiry = expiry.New(expiry.Config{
		Store: m.store, Engine: m.engine, Interval: m.Config.ExpiryInterval, Logger: m.Logger, Registerer: reg,
	})
	m.expiry.Start()
	if m.Config.IdempotencyRetention != 0 {
		m.pruner = expiry.NewPruner(expiry.PrunerConfig{
			Store: m.store, Retention: m.Config.IdempotencyRetention, Logger: m.Logger, Registerer: reg,
		})
		m.pruner.Start()
	}
	if m.relay, err = m.startRelay(reg); err != nil {
		return err
	}
	if m.webhooks, err = m.startWebhooks(reg); err != nil {
		return err
	}
	if s := m.Config.Reconcile.Schedule; s != (reconcile.Schedule{}) {
		m.reconcile = startReconcile(m.serveReconciler(reg), s)
	}
	if m.alerts, err = m.startAlerts(zone, reg); err != nil {
		return err
	}
	if err := m.startGate(ctx, reg); err != nil {
		return err
	}
	api := httpapi.NewServer(httpapi.Config{
		Gate:   m.gate,
		Engine: m.engine, Store: m.store, Logger: m.Logger, Registerer: reg, Gatherer: reg,
		RequireKeys:              requireKeys,
		KeyRequestsPerSecond:     m.Config.KeyRequestsPerSecond,
		KeyRequestsBurst:         m.Config.KeyRequestsBurst,
		SKUReservationsPerSecond: m.Config.SKUReservationsPerSecond,
		SKUReservationsBurst:     m.Config.SKUReservationsBurst,

		UnauthenticatedLookupsPerSecond: m.Config.UnauthenticatedLookupsPerSecond,
		RequestTimeout:                  m.Config.RequestTimeout,
		WriteHealth:                     m.writeHealth,
		RelayHealth:                     m.relay.health,
		BusinessTimeZone:                zone,
	})
	handler := dashboard.Mount(api, dashboard.New(dashboard.Config{
		Store: m.store, RequireKeys: requireKeys, Gatherer: reg, Logger: m.Logger, BusinessTimeZone: zone,
	}))
	if m.Config.DebugAddr != "" {
		if m.debug, err = startDebug(m.Config.DebugAddr); err != nil {
			return err
		}
		m.Logger.Warn("profiler on: /debug/pprof/ is served", "debug_addr", m.Config.DebugAddr)
	}
	m.listener, err = net.Listen("tcp", m.Config.Addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	m.server = &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       15 * time.Second,
		WriteTimeout:      httpWriteTimeout,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    16 << 10,
	}
	m.served = make(chan error, 1)
	go func() { m.served <- m.server.Serve(m.listener) }()
	m.Logger.Info("stockd listening", "addr", m.Addr(), "database", redactURL(m.Config.DatabaseURL))
	return nil
}

// startGate connects the gate's Redis when --redis-url is set, refuses
// one that may evict keys, and starts the persister, the reconciler, the
// returner (which leads on one replica at a time) and the keeper.
func (m *Main) startGate(ctx context.Context, reg prometheus.Registerer) error {
	if m.Config.RedisURL == "" {
		return nil
	}
	opts, err := redis.ParseURL(m.Config.RedisURL)
	if err != nil {
		return fmt.Errorf("redis url: %w", err)
	}
	m.redis = redis.NewClient(opts)
	check, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	warnings, err := gate.CheckConfig(check, m.redis, m.Config.GateAllowEviction)
	if err != nil {
		return fmt.Errorf("refusing to start: %w", err)
	}
	for _, w := range warnings {
		m.Logger.Warn("gate: " + w)
	}
	m.gate = gate.New(gate.Config{Client: m.redis, Store: m.store, Engine: m.engine, Logger: m.Logger})
	if err := m.gate.Register(reg); err != nil {
		return err
	}
	run, stop := context.WithCancel(context.Background())
	m.stopGate, m.gateDone = stop, make(chan struct{})
	go func() {
		defer close(m.gateDone)
		var workers sync.WaitGroup
		workers.Go(func() { m.gate.Reconciler(run, m.Config.GateReconcileInterval) })
		workers.Go(func() { m.gate.Returner(run) })
		workers.Go(func() { m.gate.Keeper(run) })
		if err := m.gate.Persister(run); err != nil {
			m.Logger.Error("gate: persister stopped", "err", err)
		}
		workers.Wait()
	}()
	m.Logger.Info("gate on", "redis", redactURL(m.Config.RedisURL))
	return nil
}

// durabilityChecker is a store that can tell whether commits survive a crash.
type durabilityChecker interface {
	CheckDurability(ctx context.Context) error
}

func (m *Main) appliers() int {
	if m.Config.Appliers > 0 {
		return m.Config.Appliers
	}
	if m.store.ConcurrentWriters() {
		return 2 // overlap one batch's commit flush with the next batch's work
	}
	return 1
}

// writeHealth tells the health probe what the engine knows of its batches.
func (m *Main) writeHealth(now time.Time) string {
	if h := m.engine.WriteHealth(now); !h.OK {
		return h.Reason
	}
	return ""
}

// Halted reports the engine's halt on a broken invariant (OnHalt sends at
// most once); nil until Run succeeded.
func (m *Main) Halted() <-chan error { return m.halted }

// Addr is the address the server listens on (useful with port 0).
func (m *Main) Addr() string {
	if m.listener == nil {
		return ""
	}
	return m.listener.Addr().String()
}

// Served reports the server's end; nil until Run succeeded.
func (m *Main) Served() <-chan error { return m.served }

// Close drains in-flight requests, then stops the worker and the engine and
// closes the database, in that order, so nothing accepted is dropped.
func (m *Main) Close() error {
	var errs []error
	if m.server != nil {
		timeout := m.Config.ShutdownTimeout
		if timeout <= 0 {
			timeout = shutdownTimeoutDefault
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		if err := m.server.Shutdown(ctx); err != nil {
			errs = append(errs, fmt.Errorf("shutdown http: %w", err))
		}
	}
	if err := m.debug.close(); err != nil {
		errs = append(errs, fmt.Errorf("close debug: %w", err))
	}
	if m.expiry != nil {
		m.expiry.Stop()
	}
	if m.pruner != nil {
		m.pruner.Stop()
	}
	if m.reconcile != nil {
		m.reconcile.Stop()
	}
	m.alerts.stop()
	if m.stopGate != nil {
		m.stopGate()
		<-m.gateDone
	}
	if m.redis != nil {
		if err := m.redis.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close redis: %w", err))
		}
	}
	if m.engine != nil {
		m.engine.Close()
	}
	m.relay.stop()
	m.webhooks.stop()
	if m.store != nil {
		if err := m.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("close store: %w", err))
		}
	}
	return errors.Join(errs...)
}

// relayRun is the event relay running beside the server; nil when off.
type relayRun struct {
	relay  *relay.Relay
	cancel context.CancelFunc
	done   chan struct{}
}

// startRelay starts the relay when --nats-url is set. NATS being down is
// not a reason to refuse to start: the relay retries, and the events wait
// in the ledger.
func (m *Main) startRelay(reg prometheus.Registerer) (*relayRun, error) {
	if m.Config.NATSURL == "" {
		return nil, nil
	}
	r, err := relay.New(relay.Config{
		Store: m.store, URL: m.Config.NATSURL, Stream: m.Config.NATSStream, Environment: m.Config.Environment,
		Encode: httpapi.MarshalEvent, Logger: m.Logger, Registerer: reg,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &relayRun{relay: r, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(run.done)
		if err := r.Run(ctx); err != nil {
			m.Logger.Error("relay stopped", "err", err)
		}
	}()
	m.Logger.Info("relaying events to NATS", "url", redactURL(m.Config.NATSURL), "stream", m.Config.NATSStream, "environment", m.Config.Environment)
	return run, nil
}

// health is the relay's part of GET /healthz; nil when off.
func (r *relayRun) health() *httpapi.RelayHealth {
	if r == nil {
		return nil
	}
	st := r.relay.Status()
	return &httpapi.RelayHealth{State: st.State, Cursor: st.Cursor, LagEvents: st.LagEvents, LagSeconds: st.LagSeconds, Error: st.Error}
}

// stop ends the relay and waits for it; what it had not published waits
// in the ledger for the next start.
func (r *relayRun) stop() {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
}

// dispatchRun is the webhook dispatcher running beside the server; nil
// when off.
type dispatchRun struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startWebhooks starts the dispatcher unless --webhooks-off. With no
// endpoint registered it only holds its lease and looks for one each
// second.
func (m *Main) startWebhooks(reg prometheus.Registerer) (*dispatchRun, error) {
	if m.Config.WebhooksOff {
		return nil, nil
	}
	d, err := dispatch.New(dispatch.Config{
		Store: m.store, Encode: httpapi.MarshalEvent, Environment: m.Config.Environment,
		FailuresMax: m.Config.WebhookFailuresMax, Timeout: m.Config.WebhookTimeout, BackoffMax: m.Config.WebhookBackoffMax,
		Logger: m.Logger, Registerer: reg,
	})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &dispatchRun{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(run.done)
		if err := d.Run(ctx); err != nil {
			m.Logger.Error("webhook dispatcher stopped", "err", err)
		}
	}()
	return run, nil
}

// stop ends the dispatcher and waits for it; an attempt cut short is made
// again by the next start.
func (r *dispatchRun) stop() {
	if r == nil {
		return
	}
	r.cancel()
	<-r.done
}
