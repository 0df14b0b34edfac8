package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// writeFailureMemory is how long a failed batch keeps health degraded
// when no batch has committed since: long enough for a probe to see it,
// short enough that a server with no traffic left recovers by itself
// once its health probe's own write succeeds.
const writeFailureMemory = 30 * time.Second

// writeHealth remembers whether the last batches reached the database.
type writeHealth struct {
	mu          sync.Mutex
	failedAt    time.Time
	failingFrom time.Time
	reason      string
}

// observe records a batch attempt's outcome. Only failures of the
// database count: a command refused for its data says nothing of the
// write path.
func (h *writeHealth) observe(now time.Time, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		h.failedAt, h.failingFrom, h.reason = time.Time{}, time.Time{}, ""
	case errors.Is(err, store.ErrUnavailable), errors.Is(err, context.DeadlineExceeded):
		if h.failingFrom.IsZero() {
			h.failingFrom = now
		}
		h.failedAt = now
		h.reason = stockd.CodeDatabaseUnavailable
		if errors.Is(err, context.DeadlineExceeded) {
			h.reason = stockd.CodeTimeout
		}
	}
}

// WriteHealth is what the engine knows of its write path.
type WriteHealth struct {
	// OK is false when the engine halted, or when batches failed to reach
	// the database and none has committed since.
	OK bool
	// Reason is a code: halted, database_unavailable or timeout.
	Reason string
	// Since is when the failures began.
	Since time.Time
}

// WriteHealth reports whether batches are reaching the database.
func (e *Engine) WriteHealth(now time.Time) WriteHealth {
	if e.halted.Load() {
		return WriteHealth{Reason: stockd.CodeHalted}
	}
	h := &e.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failedAt.IsZero() || now.Sub(h.failedAt) > writeFailureMemory {
		return WriteHealth{OK: true}
	}
	return WriteHealth{Reason: h.reason, Since: h.failingFrom}
}
