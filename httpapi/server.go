// Package httpapi is stockd's HTTP JSON API under /v1: the server, a Go
// client on the same contract, and the OpenAPI document describing both.
// Every mutation goes through the engine with the caller's idempotency key;
// reads go to the store.
package httpapi

// Files are named by resource, as the domain's are, so that a resource's
// HTTP side is found under the name of its domain side: transfer.go holds
// the transfer routes, handlers and wire types (stockd's transfer.go the
// operations), client_transfer.go the client's calls, transfer_test.go the
// tests, and openapi/transfer.json its part of the API document. What
// several resources share has a file of its own: server.go, mutation.go,
// decode.go, document.go, types.go, problem.go; so do the tests that chain
// several resources' steps over shared stock (scenario_test.go,
// client_scenario_test.go).
//
// Request bodies are decoded strictly by Server (unknown fields are
// refused) and encoded by Client. Numbers a request cannot do without are
// pointers, so that a missing one is told apart from a zero.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/reconcile"
	"github.com/stockd/stockd/replenish/evaluate"
	"github.com/stockd/stockd/store"
)

// Submitter applies one command; *engine.Engine is one. Submit returns bad
// input and business failures as Result.Err, and an error only for failures
// that are not the caller's (storage unreachable, ctx done).
type Submitter interface {
	Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error)
}

// Config configures a Server. Zero values mean the documented default.
type Config struct {
	// Engine applies every mutation. Required.
	Engine Submitter
	// Store serves the reads. Required.
	Store store.Store
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Registerer receives the request metrics. Defaults to a new registry
	// of the server's own.
	Registerer prometheus.Registerer
	// Gatherer is what GET /metrics exposes. Defaults to Registerer when it
	// is also a Gatherer (as *prometheus.Registry is), else to
	// prometheus.DefaultGatherer.
	Gatherer prometheus.Gatherer

	// RequireKeys makes every /v1 request need an API key even while the
	// store holds none. Otherwise the server runs open until the first key
	// exists, and requires keys from then on (see auth.go).
	RequireKeys bool
	// KeyCacheTTL is how long a key lookup is remembered, and so how long a
	// key revoked by another process keeps working. Defaults to 5 seconds.
	KeyCacheTTL time.Duration
	// KeyRequestsPerSecond is each key's sustained request rate. Defaults
	// to 1000; negative switches the per-key limit off.
	KeyRequestsPerSecond float64
	// KeyRequestsBurst is how many requests a key may send at once.
	// Defaults to twice KeyRequestsPerSecond (2000), at least 1.
	KeyRequestsBurst int
	// SKUReservationsPerSecond limits the reservations naming one SKU, over
	// all keys, for SKUs hot enough to crowd out the rest. Zero, the
	// default, switches the per-SKU limit off.
	SKUReservationsPerSecond float64
	// SKUReservationsBurst defaults to SKUReservationsPerSecond, at least 1.
	SKUReservationsBurst int
	// UnauthenticatedLookupsPerSecond limits, per client address, the
	// requests that make the server look a key up in the database (a key
	// it has not seen within KeyCacheTTL), so that a flood of made-up keys
	// costs a 429 rather than a query each. Defaults to 50; negative
	// switches the limit off. Bursts are twice the rate.
	UnauthenticatedLookupsPerSecond float64
	// RequestTimeout is the server's deadline for each /v1 request: reads,
	// key lookups and the batch a mutation waits for. Past it the answer is
	// 503 timeout, well before the HTTP server's write timeout would cut
	// the connection. Defaults to 5 seconds.
	RequestTimeout time.Duration
	// WriteHealth reports what the engine knows of the write path: "" when
	// batches reach the database, else a reason code (halted,
	// database_unavailable). May be nil.
	WriteHealth func(now time.Time) string
	// RelayHealth reports the event relay's state and lag for GET
	// /healthz. May be nil (no relay).
	RelayHealth func() *RelayHealth
	// Now is the clock of keys, audit events and rate limits. Defaults to
	// time.Now.
	Now func() time.Time
	// BusinessTimeZone decides the business days of replenishment: which
	// day a sale counts for, and the date as_of names. Defaults to UTC.
	BusinessTimeZone *time.Location
	// Gate, when set, decides the reservations of pools that name the
	// Redis gate (serve --redis-url). Nil refuses such pools.
	Gate *gate.Gate
}

const (
	// healthTimeout bounds the store probes behind GET /healthz, so that a
	// stuck database answers unhealthy instead of hanging the probe.
	healthTimeout = 2 * time.Second
	// requestTimeoutDefault is RequestTimeout's default.
	requestTimeoutDefault = 5 * time.Second
)

// Server is the HTTP API. It implements http.Handler.
type Server struct {
	engine   Submitter
	store    store.Store
	logger   *slog.Logger
	metrics  *metrics
	gatherer prometheus.Gatherer
	mux      *http.ServeMux
	now      func() time.Time
	auth     *authenticator
	// skuLimits is nil when the per-SKU limit is off.
	skuLimits      *limiterSet
	requestTimeout time.Duration
	health         *healthProbe
	// counts compares physical counts (POST /v1/counts).
	counts    *reconcile.Reconciler
	evaluator *evaluate.Evaluator
	gate      *gate.Gate
}

// route is one endpoint: a ServeMux pattern, the fixed operation name its
// metrics carry (never the raw path, whose ids would explode the label
// set), and the scope a key needs for it ("" for the endpoints that stay
// open: health, metrics and the API document).
type route struct {
	pattern   string
	operation string
	scope     stockd.Scope
	handler   http.HandlerFunc
}

// operationUnmatched labels requests no route serves.
const operationUnmatched = "unmatched"

// NewServer returns a Server with every route registered.
func NewServer(cfg Config) *Server {
	if cfg.Engine == nil || cfg.Store == nil {
		panic("httpapi: Config.Engine and Config.Store are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Registerer == nil {
		cfg.Registerer = prometheus.NewRegistry()
	}
	if cfg.Gatherer == nil {
		if g, ok := cfg.Registerer.(prometheus.Gatherer); ok {
			cfg.Gatherer = g
		} else {
			cfg.Gatherer = prometheus.DefaultGatherer
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = requestTimeoutDefault
	}
	s := &Server{
		engine:    cfg.Engine,
		gate:      cfg.Gate,
		store:     cfg.Store,
		logger:    cfg.Logger,
		metrics:   newMetrics(cfg.Registerer),
		gatherer:  cfg.Gatherer,
		mux:       http.NewServeMux(),
		now:       cfg.Now,
		auth:      newAuthenticator(cfg),
		skuLimits: newSKULimits(cfg),

		requestTimeout: cfg.RequestTimeout,
		health:         newHealthProbe(cfg),
		counts:         newCounts(cfg),
		evaluator:      &evaluate.Evaluator{Store: cfg.Store, Zone: cfg.BusinessTimeZone},
	}
	for _, rt := range s.routes() {
		if rt.scope != "" {
			rt.handler = strictQuery(rt.pattern, rt.handler)
		}
		s.mux.Handle(rt.pattern, s.instrument(rt.operation, s.deadline(rt, s.guard(rt))))
	}
	s.mux.Handle("/", s.instrument(operationUnmatched, s.unmatched))
	return s
}

func (s *Server) routes() []route {
	// The open endpoints are the server's own, not a resource of /v1.
	open := []route{
		{"GET /healthz", "healthz", "", s.healthz},
		{"GET /metrics", "metrics", "", promhttp.HandlerFor(s.gatherer, promhttp.HandlerOpts{}).ServeHTTP},
		{"GET /openapi.json", "openapi", "", s.openAPI},
		{"GET /{$}", "index", "", s.index},
	}
	// Each resource lists its routes beside its handlers.
	return slices.Concat(
		s.skuRoutes(), s.locationRoutes(), s.receiveRoutes(), s.adjustRoutes(), s.stockRoutes(),
		s.reserveRoutes(), s.transitionRoutes(), s.extendRoutes(), s.ledgerRoutes(), s.apiKeyRoutes(), open,
		s.bundleRoutes(), s.purchaseLimitRoutes(),
		s.poolRoutes(), s.allocationRoutes(), s.campaignRoutes(), s.settingsRoutes(), s.approvalRoutes(),
		s.returnRoutes(), s.shipmentRoutes(), s.transferRoutes(), s.purchaseOrderRoutes(), s.requestRoutes(),
		s.discrepancyRoutes(), s.countRoutes(),
		s.alertRoutes(),
		s.replenishmentRoutes(),
		s.auditEventRoutes(),
		s.gateRoutes(),
		s.webhookRoutes(),
		s.importRoutes(),
		s.exceptionRoutes(),
	)
}

// ServeHTTP serves one request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.Path; p != "" && !cleanPath(p) {
		// The mux would redirect (307, with an HTML body) to the cleaned
		// path: /v1/reservations//confirm, an empty id, would become
		// /v1/reservations/confirm. An API answers what it was asked.
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "path %q has an empty or dot segment", p))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// cleanPath reports whether p has no empty, "." or ".." segment (a final
// slash is allowed: the mux answers those without a redirect).
func cleanPath(p string) bool {
	cleaned := path.Clean(p)
	if strings.HasSuffix(p, "/") && cleaned != "/" {
		cleaned += "/"
	}
	return cleaned == p
}

// instrument counts and times each request under its operation, and turns
// a handler's panic (a bug) into a logged 500 rather than a dropped
// connection a client would retry into the same bug.
func (s *Server) instrument(operation string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.logger.Error("handler panicked", "operation", operation, "panic", p)
				if !rec.wroteHeader {
					writeProblem(rec, internalError())
				}
			}
			s.metrics.observe(operation, rec, time.Since(start))
		}()
		h(rec, r)
	})
}

// unmatched answers a request no route serves: 405 with Allow when the
// path exists under other methods, else 404, both as problems. The
// methods probed are those the routes register, so that a method added
// later (PATCH) is offered without a change here.
func (s *Server) unmatched(w http.ResponseWriter, r *http.Request) {
	var methods []string
	for _, rt := range s.routes() {
		// Every pattern is "METHOD /path".
		if i := slices.Index([]byte(rt.pattern), ' '); i > 0 && !slices.Contains(methods, rt.pattern[:i]) {
			methods = append(methods, rt.pattern[:i])
		}
	}
	slices.Sort(methods)
	var allowed []string
	for _, method := range methods {
		probe := r.Clone(r.Context())
		probe.Method = method
		if _, pattern := s.mux.Handler(probe); pattern != "/" && pattern != "" {
			allowed = append(allowed, method)
		}
	}
	if len(allowed) > 0 {
		for _, m := range allowed {
			w.Header().Add("Allow", m)
		}
		writeProblem(w, stockd.Errorf(CodeMethodNotAllowed, "%s is not served on %s", r.Method, r.URL.Path))
		return
	}
	writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "no endpoint at %s", r.URL.Path))
}

// deadline gives a /v1 request the server's deadline, so that nothing a
// stalled database holds up waits longer than a client is told to wait.
// The open endpoints (health, metrics, the API document) keep their own.
func (s *Server) deadline(rt route, h http.HandlerFunc) http.HandlerFunc {
	if rt.scope == "" {
		return h
	}
	timeout := s.requestTimeout
	if t, ok := routeTimeout(rt); ok {
		timeout = t
	}
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		defer cancel()
		h(w, r.WithContext(ctx))
	}
}

func internalError() *stockd.Error {
	return stockd.Errorf(stockd.CodeInternal, "internal error")
}

// failure answers an error that is not the caller's, with a code that says
// what happened and what to do:
//   - halted: the engine stopped on a broken invariant; an operator must look;
//   - timeout: the server's deadline passed (a slow or stalled database);
//   - cancelled: the caller hung up before the answer;
//   - database_unavailable: the database refused or lost the connection;
//   - internal: a bug, answered with an incident id under which the log
//     holds the details.
//
// The first four are 503 with Retry-After: retrying with the same
// idempotency key learns the outcome. No database error text reaches the
// caller: it may name hosts, ports and the schema.
func (s *Server) failure(w http.ResponseWriter, r *http.Request, err error) {
	var e *stockd.Error
	switch {
	case errors.Is(err, stockd.ErrHalted):
		e = stockd.Errorf(stockd.CodeHalted, "stockd stopped applying changes on a broken invariant of its books; an operator must look before it is restarted")
	case errors.Is(r.Context().Err(), context.DeadlineExceeded), errors.Is(err, context.DeadlineExceeded):
		e = stockd.Errorf(stockd.CodeTimeout, "the request did not finish within the server's deadline of %v; retry with the same idempotency key", s.requestTimeout)
	case r.Context().Err() != nil, errors.Is(err, context.Canceled):
		e = stockd.Errorf(stockd.CodeCancelled, "the request ended before it was answered; retry with the same idempotency key")
	case errors.Is(err, store.ErrUnavailable):
		e = stockd.Errorf(stockd.CodeDatabaseUnavailable, "the database is unavailable; retry later with the same idempotency key")
	}
	if e != nil {
		s.logger.Warn("request failed", "method", r.Method, "path", r.URL.Path, "code", e.Code, "err", err)
		writeProblem(w, e)
		return
	}
	incident, ok := errors.AsType[*stockd.Incident](err)
	if !ok {
		incident = &stockd.Incident{ID: uuid.NewString(), Err: err}
		s.logger.Error("request failed", "method", r.Method, "path", r.URL.Path, "incident", incident.ID, "err", err)
	}
	writeProblemAt(w, internalError(), "urn:uuid:"+incident.ID)
}

// recorder remembers what a handler answered, for the metrics.
type recorder struct {
	http.ResponseWriter
	status      int
	code        string // error code of a problem answer
	replayed    bool   // answered from a stored answer
	wroteHeader bool
}

func (rec *recorder) WriteHeader(status int) {
	if !rec.wroteHeader {
		rec.status, rec.wroteHeader = status, true
		rec.replayed = rec.Header().Get(headerReplayed) == "true"
	}
	rec.ResponseWriter.WriteHeader(status)
}

func (rec *recorder) Write(b []byte) (int, error) {
	if !rec.wroteHeader {
		rec.WriteHeader(http.StatusOK)
	}
	return rec.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (rec *recorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// outcome is the metrics code label: "ok", or the answer's error code.
func (rec *recorder) outcome() string {
	switch {
	case rec.code != "":
		return rec.code
	case rec.status >= http.StatusBadRequest:
		return fmt.Sprintf("http_%d", rec.status)
	}
	return "ok"
}
