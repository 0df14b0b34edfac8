package httpapi

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/stockd/stockd/store"
)

// Health is the answer of GET /healthz.
type Health struct {
	// Status is ok or unavailable.
	Status string `json:"status"`
	// Reason says what fails: halted, database_unavailable,
	// writes_failing or batches_failing.
	Reason string `json:"reason,omitempty"`
	Detail string `json:"detail,omitempty"`
	// Relay is where the event relay stands, when serve runs one. Its lag
	// never makes the server unhealthy: the books are served either way.
	Relay *RelayHealth `json:"relay,omitempty"`
}

// RelayHealth is the relay's part of GET /healthz.
type RelayHealth struct {
	// State is leading, standby, failing or stopped.
	State string `json:"state"`
	// Cursor is the last seq the broker acknowledged.
	Cursor int64 `json:"cursor"`
	// LagEvents is the ledger's last seq minus the cursor.
	LagEvents int64 `json:"lag_events"`
	// LagSeconds is the age of the oldest event not yet published.
	LagSeconds float64 `json:"lag_seconds"`
	// Error is the relay's last failure, while it is failing.
	Error string `json:"error,omitempty"`
}

// Reasons GET /healthz gives for unavailable, worst first.
const (
	healthHalted         = "halted"               // the engine stopped on a broken invariant
	healthReadsFailing   = "database_unavailable" // the database does not answer a read
	healthWritesFailing  = "writes_failing"       // a write cannot be committed (a full disk, a standby)
	healthBatchesFailing = "batches_failing"      // the engine's batches fail to reach the database
)

// healthWriteInterval bounds how often GET /healthz writes its probe row:
// a load balancer (or a flood) asking many times a second costs one small
// commit a second. The read runs every time; it costs nothing durable.
const healthWriteInterval = time.Second

// healthProbe answers GET /healthz from a read, a write and what the engine
// knows of its batches.
type healthProbe struct {
	store       store.Store
	writeHealth func(time.Time) string
	relayHealth func() *RelayHealth

	mu        sync.Mutex
	writtenAt time.Time
	writeErr  error
}

func newHealthProbe(cfg Config) *healthProbe {
	return &healthProbe{store: cfg.Store, writeHealth: cfg.WriteHealth, relayHealth: cfg.RelayHealth}
}

func (p *healthProbe) check(ctx context.Context, now time.Time) Health {
	engineReason := ""
	if p.writeHealth != nil {
		engineReason = p.writeHealth(now)
	}
	if engineReason == healthHalted {
		return Health{Status: "unavailable", Reason: healthHalted,
			Detail: "the engine stopped on a broken invariant of the books; see the log, then restart"}
	}
	ctx, cancel := context.WithTimeout(ctx, healthTimeout)
	defer cancel()
	if _, err := p.store.LocationList(ctx); err != nil {
		return Health{Status: "unavailable", Reason: healthReadsFailing, Detail: "the database does not answer a read"}
	}
	if err := p.write(ctx, now); err != nil {
		return Health{Status: "unavailable", Reason: healthWritesFailing,
			Detail: "the database answers reads but cannot commit a write (disk full, read-only, or stalled)"}
	}
	if engineReason != "" {
		return Health{Status: "unavailable", Reason: healthBatchesFailing,
			Detail: "recent batches failed to reach the database (" + engineReason + ") and none has committed since"}
	}
	return Health{Status: "ok"}
}

// write commits the probe row, or returns the outcome of a write that
// succeeded within healthWriteInterval. A failed write is tried again at
// the next check, so that recovery shows at once. Writes run one at a time.
func (p *healthProbe) write(ctx context.Context, now time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.writeErr == nil && !p.writtenAt.IsZero() && now.After(p.writtenAt) && now.Sub(p.writtenAt) < healthWriteInterval {
		return nil
	}
	p.writeErr = p.store.HealthWrite(ctx, now)
	p.writtenAt = now
	return p.writeErr
}

func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	h := s.health.check(r.Context(), s.now())
	if s.health.relayHealth != nil {
		h.Relay = s.health.relayHealth()
	}
	if h.Status != "ok" {
		s.logger.Warn("health check failed", "reason", h.Reason)
		writeJSON(w, http.StatusServiceUnavailable, h)
		return
	}
	writeJSON(w, http.StatusOK, h)
}
