package bench

import (
	"context"
	"time"
)

// Dataset is the stock one row works on: SKUs created for that row alone
// (their names carry the run id, the scenario and the concurrency), each
// with Stock units on hand.
type Dataset struct {
	Prefix string
	SKUs   []string
	Stock  int64
}

// Line asks for Quantity units of the dataset's SKU at index SKU.
type Line struct {
	SKU      int
	Quantity int64
}

// Request is one reservation.
type Request struct {
	// Key is the idempotency key; a retry reuses it.
	Key   string
	Lines []Line
	TTL   time.Duration
}

// Status is how an implementation answered a request.
type Status int

const (
	// Won: the stock is held (or the transition happened).
	Won Status = iota
	// Rejected: not enough stock (409 insufficient_stock), or a transition
	// the reservation's state no longer allows.
	Rejected
	// Overloaded: the implementation shed the request (429 overloaded).
	Overloaded
)

// Outcome is one answer.
type Outcome struct {
	Status Status
	// ReservationID and ReservationStatus are set by stockd targets.
	ReservationID     string
	ReservationStatus string
	// Replayed is true when the answer is the stored answer of an earlier
	// request with the same key.
	Replayed bool
	// Expired is true when a confirm lost to the reservation's deadline.
	Expired bool
}

// Target is one implementation under load: stockd (engine or HTTP) or a
// baseline. Reserve is called concurrently; the others are not.
type Target interface {
	// Name labels the implementation in the report.
	Name() string
	// Setup creates the dataset's SKUs with their stock.
	Setup(ctx context.Context, d *Dataset) error
	// Reserve holds every line of req or none. err is for failures that
	// are no answer at all (connection lost, internal error).
	Reserve(ctx context.Context, req *Request) (Outcome, error)
	// Check compares the implementation's books for d with what the bench
	// was told: want[i] holds the units of d.SKUs[i] that should be held.
	Check(ctx context.Context, d *Dataset, want []Held) (CheckResult, error)
	// Cleanup removes what only the benchmark needs (baseline rows, Redis
	// keys); stockd's books keep everything, like any other history.
	Cleanup(ctx context.Context, d *Dataset) error
	Close() error
}

// Held is what the bench expects one SKU to hold after a row.
type Held struct {
	// Reserved units are held by pending reservations (baselines: taken).
	Reserved int64
	// Committed units are held by confirmed reservations.
	Committed int64
}

// CheckResult is an implementation's books after a row.
type CheckResult struct {
	// Oversold is the units handed out beyond the stock, summed over SKUs,
	// as the books show them: a negative available, or held units above on
	// hand.
	Oversold int64
	// Mismatches counts SKUs whose books differ from what the bench saw
	// answered: a lost or duplicated effect.
	Mismatches int
	// Detail describes the first mismatch.
	Detail string
}

// lifecycleTarget is a stockd target: its reservations can be confirmed,
// released and left to expire.
type lifecycleTarget interface {
	Target
	Confirm(ctx context.Context, id, key string) (Outcome, error)
	Release(ctx context.Context, id, key string) (Outcome, error)
	// Settle returns once every reservation whose deadline is at or before
	// deadline has expired (or ctx ends).
	Settle(ctx context.Context, deadline time.Time) error
}

// verifier audits stockd's whole books.
type verifier interface {
	// Verify returns "clean" or "N differences", and whether it was clean.
	Verify(ctx context.Context) (string, bool, error)
}

// batchStats are the engine's batch counters at one moment.
type batchStats struct {
	batches  int64
	commands float64
	seconds  float64
	steps    [6]int64 // nanoseconds per batch step, summed
}

// batchStatser is a target that can say how it batched (the engine).
type batchStatser interface {
	batchStats() (batchStats, error)
}
