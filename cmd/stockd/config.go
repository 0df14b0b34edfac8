package main

import (
	"fmt"
	"log/slog"
	"math"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/dispatch"
	"github.com/stockd/stockd/internal/logcap"
	"github.com/stockd/stockd/relay"
)

// Config is the service's configuration: each field has a flag and a
// STOCKD_* environment variable; the flag wins.
type Config struct {
	DatabaseURL string
	Addr        string
	// AllowUnsafeDurability lets serve start on a PostgreSQL with fsync or
	// synchronous_commit off: for benchmarks only, never production.
	AllowUnsafeDurability bool
	LogFormat             string
	LogLevel              string
	ExpiryInterval        time.Duration
	Appliers              int
	BatchSizeMax          int
	ShutdownTimeout       time.Duration
	// Rate limits: see httpapi.Config for their defaults.
	KeyRequestsPerSecond     float64
	KeyRequestsBurst         int
	SKUReservationsPerSecond float64
	SKUReservationsBurst     int
	// UnauthenticatedLookupsPerSecond: see httpapi.Config.
	UnauthenticatedLookupsPerSecond float64
	// RequestTimeout is the server's deadline for each /v1 request.
	RequestTimeout time.Duration
	// The event relay: off without NATSURL. Environment tags its subjects
	// and every alert message, and is required with either (seed 003:
	// messages must say which environment they come from).
	NATSURL     string
	NATSStream  string
	Environment string
	// Reconcile schedules the reconciliation passes; its zero value runs
	// none.
	Reconcile ReconcileConfig
	// BusinessTimeZone is the IANA name of the zone whose days are the
	// business days of replenishment. Defaults to UTC.
	BusinessTimeZone string
	// The alert worker's (alerts.go); Environment, above, tags its
	// messages too.
	AlertSinks    string
	AlertDailyAt  string
	AlertDebounce time.Duration
	AlertInterval time.Duration
	// RedisURL, when set, enables the gate of campaign pools that name
	// it (package gate).
	RedisURL string
	// GateAllowEviction starts the gate on a Redis whose maxmemory-policy
	// may evict keys: for tests only.
	GateAllowEviction bool
	// GateReconcileInterval is how often every gated campaign is
	// reconciled.
	GateReconcileInterval time.Duration
	// The webhook dispatcher (package dispatch): on unless
	// WebhooksOff; see dispatch.Config for the rest.
	WebhooksOff        bool
	WebhookFailuresMax int
	WebhookTimeout     time.Duration
	WebhookBackoffMax  time.Duration
	// IdempotencyRetention is how long the first answer under an
	// idempotency key is replayed whole; after it the expiry worker's
	// pruner keeps only the outcome. Zero keeps every answer (the flag
	// defaults to stockd.IdempotencyRetentionDefault).
	IdempotencyRetention time.Duration
	// DebugAddr, when set, serves Go's profiler (/debug/pprof/) on this
	// loopback address; empty, the default, serves none.
	DebugAddr string
}

const (
	databaseURLDefault     = "sqlite://stockd.db"
	addrDefault            = "127.0.0.1:8080"
	shutdownTimeoutDefault = 15 * time.Second
	requestTimeoutDefault  = 5 * time.Second
	// httpWriteTimeout cuts a connection whose answer is not written by
	// then; every request's deadline must end well before it, so that a
	// stalled database gets a 503 and not an empty reply.
	httpWriteTimeout = 30 * time.Second
	// requestTimeoutMax leaves the answer of a request that ran to its
	// deadline time to be written.
	requestTimeoutMax = httpWriteTimeout - 10*time.Second
)

// envName turns a flag name into its environment variable.
func envName(flag string) string {
	return "STOCKD_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// bindDatabaseFlags adds the flags every subcommand that opens the database needs.
func bindDatabaseFlags(fs *pflag.FlagSet, c *Config) {
	fs.StringVar(&c.DatabaseURL, "database-url", databaseURLDefault, "postgres://… or sqlite://PATH (env STOCKD_DATABASE_URL)")
	fs.StringVar(&c.LogFormat, "log-format", "text", "text or json (env STOCKD_LOG_FORMAT)")
	fs.StringVar(&c.LogLevel, "log-level", "info", "debug, info, warn or error (env STOCKD_LOG_LEVEL)")
}

func bindServeFlags(fs *pflag.FlagSet, c *Config) {
	fs.StringVar(&c.Addr, "addr", addrDefault, "listen address (env STOCKD_ADDR)")
	fs.StringVar(&c.DebugAddr, "debug-addr", "", "serve Go's profiler (/debug/pprof/) on this loopback address, e.g. 127.0.0.1:6060; empty serves none (env STOCKD_DEBUG_ADDR)")
	fs.BoolVar(&c.AllowUnsafeDurability, "allow-unsafe-durability", false, "start even if PostgreSQL has fsync or synchronous_commit off; benchmarks only (env STOCKD_ALLOW_UNSAFE_DURABILITY)")
	fs.DurationVar(&c.ExpiryInterval, "expiry-interval", time.Second, "how often the expiry worker looks for due reservations (env STOCKD_EXPIRY_INTERVAL)")
	fs.IntVar(&c.Appliers, "appliers", 0, "batches applied at once; 0 picks 1 for SQLite and 2 for PostgreSQL (env STOCKD_APPLIERS)")
	fs.IntVar(&c.BatchSizeMax, "batch-size-max", 0, "commands per transaction; 0 is the default 512 (env STOCKD_BATCH_SIZE_MAX)")
	fs.DurationVar(&c.ShutdownTimeout, "shutdown-timeout", shutdownTimeoutDefault, "how long to drain in-flight requests (env STOCKD_SHUTDOWN_TIMEOUT)")
	fs.Float64Var(&c.KeyRequestsPerSecond, "key-requests-per-second", 1000, "sustained requests per API key; negative switches the limit off (env STOCKD_KEY_REQUESTS_PER_SECOND)")
	fs.IntVar(&c.KeyRequestsBurst, "key-requests-burst", 0, "requests an API key may send at once; 0 is twice the rate (env STOCKD_KEY_REQUESTS_BURST)")
	fs.Float64Var(&c.SKUReservationsPerSecond, "sku-reservations-per-second", 0, "sustained reservations per SKU, over all keys; 0 switches the limit off (env STOCKD_SKU_RESERVATIONS_PER_SECOND)")
	fs.IntVar(&c.SKUReservationsBurst, "sku-reservations-burst", 0, "reservations of one SKU at once; 0 is the rate, at least 1 (env STOCKD_SKU_RESERVATIONS_BURST)")
	fs.Float64Var(&c.UnauthenticatedLookupsPerSecond, "unauthenticated-lookups-per-second", 50, "key lookups in the database per client address, for keys not seen within 5 s; negative switches the limit off (env STOCKD_UNAUTHENTICATED_LOOKUPS_PER_SECOND)")
	fs.DurationVar(&c.RequestTimeout, "request-timeout", requestTimeoutDefault, "the server's deadline for each /v1 request; past it, 503 timeout (env STOCKD_REQUEST_TIMEOUT)")
	fs.StringVar(&c.NATSURL, "nats-url", "", "relay the ledger's events to this NATS JetStream server; empty switches the relay off (env STOCKD_NATS_URL)")
	fs.StringVar(&c.NATSStream, "nats-stream", "STOCKD", "the JetStream stream the relay creates or checks (env STOCKD_NATS_STREAM)")
	fs.StringVar(&c.Environment, "environment", "", "the deployment's environment tag (production, staging, loadtest, …): the relay's subjects are stockd.<environment>.<type>.<sku>, every alert message carries it and only alert sinks of this environment are sent to; required with --nats-url or --alert-sinks (env STOCKD_ENVIRONMENT)")
	bindBusinessTimeZoneFlag(fs, c)
	bindAlertFlags(fs, c)
	fs.StringVar(&c.RedisURL, "redis-url", "", "redis://… of the flash-sale gate for campaign pools with gate redis; empty switches the gate off (env STOCKD_REDIS_URL)")
	fs.BoolVar(&c.GateAllowEviction, "gate-allow-eviction", false, "start the gate on a Redis whose maxmemory-policy is not noeviction; tests only (env STOCKD_GATE_ALLOW_EVICTION)")
	fs.DurationVar(&c.GateReconcileInterval, "gate-reconcile-interval", 5*time.Minute, "how often the gate's Redis is compared with the database (env STOCKD_GATE_RECONCILE_INTERVAL)")
	fs.BoolVar(&c.WebhooksOff, "webhooks-off", false, "do not deliver events to the endpoints registered at /v1/webhooks (env STOCKD_WEBHOOKS_OFF)")
	fs.IntVar(&c.WebhookFailuresMax, "webhook-failures-max", 10, "consecutive failed deliveries that disable a webhook endpoint, 1 to 1000 (env STOCKD_WEBHOOK_FAILURES_MAX)")
	fs.DurationVar(&c.WebhookTimeout, "webhook-timeout", 10*time.Second, "the deadline of one webhook delivery, 1s to 60s (env STOCKD_WEBHOOK_TIMEOUT)")
	fs.DurationVar(&c.WebhookBackoffMax, "webhook-backoff-max", 5*time.Minute, "the longest wait before retrying a webhook delivery, 1s to 1h (env STOCKD_WEBHOOK_BACKOFF_MAX)")
	fs.DurationVar(&c.IdempotencyRetention, "idempotency-retention", stockd.IdempotencyRetentionDefault, "how long a stored answer is replayed whole under its Idempotency-Key, 24h to 87600h (10 years); after it only its outcome is kept and the same request is 422 answer_pruned; 0 keeps every answer (env STOCKD_IDEMPOTENCY_RETENTION)")
}

// bindBusinessTimeZoneFlag adds --business-time-zone to serve and to the
// commands that compute replenishment figures, which must agree on it.
func bindBusinessTimeZoneFlag(fs *pflag.FlagSet, c *Config) {
	fs.StringVar(&c.BusinessTimeZone, "business-time-zone", "UTC", "IANA time zone whose days are the business days of demand, e.g. Asia/Shanghai; stored times stay UTC (env STOCKD_BUSINESS_TIME_ZONE)")
}

// businessZone loads an IANA zone by name. "Local" is refused: the
// business day must not depend on the machine the process runs on (seed
// 003 §6).
func businessZone(name string) (*time.Location, error) {
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("business time zone %q: want an IANA name such as UTC or Asia/Shanghai", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("business time zone %q: %w", name, err)
	}
	return loc, nil
}

// applyEnv sets every flag not given on the command line from its
// STOCKD_* variable.
func applyEnv(fs *pflag.FlagSet) error {
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed || err != nil {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if serr := f.Value.Set(v); serr != nil {
				err = fmt.Errorf("%s=%q: %w", envName(f.Name), v, serr)
			}
		}
	})
	return err
}

func (c *Config) logger() (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return nil, fmt.Errorf("log level: %w", err)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch c.LogFormat {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, opts)), nil
	}
	return nil, fmt.Errorf("log format %q: want text or json", c.LogFormat)
}

// cappedLogger is logger with repeated warnings and errors capped (see
// internal/logcap); close flushes the last window's counts.
func (c *Config) cappedLogger() (logger *slog.Logger, close func(), err error) {
	base, err := c.logger()
	if err != nil {
		return nil, nil, err
	}
	logger, close = capped(base)
	return logger, close, nil
}

// capped wraps base in a logcap.Handler.
func capped(base *slog.Logger) (*slog.Logger, func()) {
	h := logcap.New(base.Handler(), logcap.Config{})
	return slog.New(h), h.Close
}

func (c *Config) validate() error {
	if err := validateDebugAddr(c.DebugAddr); err != nil {
		return err
	}
	if c.Appliers < 0 || c.Appliers > 64 {
		return fmt.Errorf("appliers %d: want 0 to 64", c.Appliers)
	}
	if c.BatchSizeMax < 0 || c.BatchSizeMax > 8192 {
		return fmt.Errorf("batch size max %d: want 0 to 8192", c.BatchSizeMax)
	}
	if c.ExpiryInterval < 10*time.Millisecond || c.ExpiryInterval > time.Hour {
		return fmt.Errorf("expiry interval %v: want 10ms to 1h", c.ExpiryInterval)
	}
	for _, rate := range []float64{c.KeyRequestsPerSecond, c.SKUReservationsPerSecond} {
		if math.IsNaN(rate) || math.IsInf(rate, 0) {
			return fmt.Errorf("rate limit %v: want a finite number", rate)
		}
	}
	if c.RequestTimeout < 100*time.Millisecond || c.RequestTimeout > requestTimeoutMax {
		return fmt.Errorf("request timeout %v: want 100ms to %v, below the HTTP write timeout of %v", c.RequestTimeout, requestTimeoutMax, httpWriteTimeout)
	}
	if math.IsNaN(c.UnauthenticatedLookupsPerSecond) || math.IsInf(c.UnauthenticatedLookupsPerSecond, 0) {
		return fmt.Errorf("unauthenticated lookups per second %v: want a finite number", c.UnauthenticatedLookupsPerSecond)
	}
	if c.RedisURL != "" && (c.GateReconcileInterval < time.Second || c.GateReconcileInterval > 24*time.Hour) {
		return fmt.Errorf("gate reconcile interval %v: want 1s to 24h", c.GateReconcileInterval)
	}
	if c.KeyRequestsBurst < 0 || c.SKUReservationsBurst < 0 || c.SKUReservationsPerSecond < 0 {
		return fmt.Errorf("rate limits: bursts and the per-SKU rate must not be negative")
	}
	if c.NATSURL != "" {
		if err := relay.CheckURL(c.NATSURL); err != nil {
			return err
		}
	}
	if !stockd.ValidIdempotencyRetention(c.IdempotencyRetention) {
		return fmt.Errorf("idempotency retention %v: want 0 (keep every answer) or %v to %v (10 years), e.g. 720h for 30 days",
			c.IdempotencyRetention, stockd.IdempotencyRetentionMin, stockd.IdempotencyRetentionMax)
	}
	if err := c.validateWebhooks(); err != nil {
		return err
	}
	if c.NATSURL != "" && !relay.ValidEnvironment(c.Environment) {
		return fmt.Errorf("environment %q: --nats-url needs --environment, 1-%d characters of [A-Za-z0-9_-] (production, staging, ...)", c.Environment, relay.EnvironmentLengthMax)
	}
	if c.BusinessTimeZone != "" {
		if _, err := businessZone(c.BusinessTimeZone); err != nil {
			return err
		}
	}
	if err := c.Reconcile.validate(); err != nil {
		return err
	}
	return c.validateAlerts()
}

// validateWebhooks bounds the dispatcher's flags. Zero values (a Config
// built without flags, as tests do) mean the defaults.
func (c *Config) validateWebhooks() error {
	if c.WebhookFailuresMax < 0 || c.WebhookFailuresMax > dispatch.FailuresLimit {
		return fmt.Errorf("webhook failures max %d: want 1 to %d", c.WebhookFailuresMax, dispatch.FailuresLimit)
	}
	if c.WebhookTimeout != 0 && (c.WebhookTimeout < time.Second || c.WebhookTimeout > time.Minute) {
		return fmt.Errorf("webhook timeout %v: want 1s to 60s", c.WebhookTimeout)
	}
	if c.WebhookBackoffMax != 0 && (c.WebhookBackoffMax < time.Second || c.WebhookBackoffMax > time.Hour) {
		return fmt.Errorf("webhook backoff max %v: want 1s to 1h", c.WebhookBackoffMax)
	}
	if c.NATSURL == "" && c.Environment != "" && !relay.ValidEnvironment(c.Environment) {
		return fmt.Errorf("environment %q: want 1-%d characters of [A-Za-z0-9_-]", c.Environment, relay.EnvironmentLengthMax)
	}
	return nil
}
