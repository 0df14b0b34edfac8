package engine

import (
	"errors"
	"sync"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// writeFailureMemory is how long a batch the database refused to take
// keeps health degraded when no batch has committed since: long enough for
// a probe to see it, short enough that a server with no traffic left
// recovers by itself (its health probe then writes a row of its own).
const writeFailureMemory = 10 * time.Second

// writeHealth remembers whether the last batches reached the database.
type writeHealth struct {
	mu          sync.Mutex
	failedAt    time.Time
	failingFrom time.Time
	reason      string
}

// observe records a batch attempt's outcome. Only the database refusing
// work counts (a full disk, a lost connection, a read-only standby): a
// command refused for its data says nothing of the write path, and a batch
// that ran out of time may only have queued behind others, which the
// health probe's own write tells apart from a stalled database.
func (h *writeHealth) observe(now time.Time, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case err == nil:
		h.failedAt, h.failingFrom, h.reason = time.Time{}, time.Time{}, ""
	case errors.Is(err, store.ErrUnavailable):
		if h.failingFrom.IsZero() {
			h.failingFrom = now
		}
		h.failedAt = now
		h.reason = stockd.CodeDatabaseUnavailable
	}
}

// WriteHealth is what the engine knows of its write path.
type WriteHealth struct {
	// OK is false when the engine halted, or when batches failed to reach
	// the database and none has committed since.
	OK bool
	// Reason is a code: halted or database_unavailable.
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
