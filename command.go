package stockd

import (
	"encoding/json"
	"time"
)

// CommandKind says what a Command does.
type CommandKind string

// Command is one mutation: an operation, and who sent it under which key.
// Commands are applied in batches, each batch in one transaction, each
// command with its own Result.
type Command struct {
	// Op says what the command does; its kind is the command's.
	Op Operation
	// IdempotencyKey makes a retry a replay of the first answer. Empty only
	// for commands of internal workers (expiry), which are idempotent by
	// their conditional transition.
	IdempotencyKey string
	// RequestHash fingerprints the request; the same key with another hash
	// is idempotency_key_reused.
	RequestHash string
	// Actor is who the caller says acts (X-Actor), or the key's id.
	Actor string
	// KeyID is the API key that sent the command, empty on a server
	// running open and for internal workers. Unlike Actor, the caller
	// cannot choose it: decisions about who may do what compare it.
	KeyID string
}

// Kind is the kind of the command's operation.
func (c *Command) Kind() CommandKind { return c.Op.Kind() }

// Result is the answer to one command. It is stored with the idempotency
// key, so a replay answers exactly what the first request was answered.
type Result struct {
	Err         *Error       `json:"error,omitempty"`
	SKU         *SKU         `json:"sku,omitempty"`
	Location    *Location    `json:"location,omitempty"`
	Position    *Position    `json:"position,omitempty"`
	Reservation *Reservation `json:"reservation,omitempty"`
	// Object is the answer of an Operation: the document or record it
	// created or changed, as JSON.
	Object json.RawMessage `json:"object,omitempty"`
	// Created is true when the command created the resource it returns.
	Created bool `json:"created,omitempty"`
	// ReReserved is true when a late confirm (OnLateReReserve) reserved
	// and confirmed the expired reservation's lines again.
	ReReserved bool `json:"re_reserved,omitempty"`
	// Pending is true when the command was accepted but waits for another
	// party (an adjustment waiting for approval).
	Pending bool `json:"pending,omitempty"`
	// Version is the version of the settings document a settings change
	// wrote (the ETag of its answer).
	Version int64 `json:"version,omitempty"`
	// Replayed is true when this is the stored answer of an earlier request.
	Replayed bool `json:"-"`
	// Unstored is true for a refusal given from sold-out knowledge without
	// a transaction: it changed nothing and was not stored under the key, so
	// a retry with the key is decided afresh.
	Unstored bool `json:"-"`
}

// IdempotencyRecord is the stored first answer for a key.
type IdempotencyRecord struct {
	Key         string
	RequestHash string
	Result      []byte // JSON of Result; only its outcome once pruned
	CreatedAt   time.Time
	// PrunedAt is when Result was cut down to its outcome (PruneAnswer),
	// zero while the whole answer is kept.
	PrunedAt time.Time
}

// Pruned reports whether only the outcome of the answer is kept.
func (r IdempotencyRecord) Pruned() bool { return !r.PrunedAt.IsZero() }
