package stockd

import (
	"encoding/json"
	"time"
)

// CommandKind says what a Command does.
type CommandKind string

const (
	KindSKUCreate      CommandKind = "sku_create"
	KindLocationCreate CommandKind = "location_create"
	KindReceive        CommandKind = "receive"
	KindAdjust         CommandKind = "adjust"
	KindReserve        CommandKind = "reserve"
	KindConfirm        CommandKind = "confirm"
	KindRelease        CommandKind = "release"
	KindExpire         CommandKind = "expire"
	KindFulfil         CommandKind = "fulfil"
)

// Command is one mutation. Commands are applied in batches, each batch in
// one transaction, each command with its own Result. Exactly one of the
// payload pointers matching Kind is set.
type Command struct {
	Kind CommandKind
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

	SKU        *SKU
	Location   *Location
	Receive    *Receive
	Adjust     *Adjust
	Reserve    *Reserve
	Transition *Transition
	// Op is the payload of every other kind.
	Op Operation
}

// Receive adds quantity to on_hand.
type Receive struct {
	Position  PositionKey
	Quantity  int64
	Reference string
}

// Adjust changes on_hand by Delta, or, when Set is true, sets it to SetOnHand
// provided it still equals ExpectedOnHand (compare-and-set for cycle counts).
type Adjust struct {
	Position       PositionKey
	Reason         string
	Delta          int64
	Set            bool
	SetOnHand      int64
	ExpectedOnHand int64
	Reference      string
}

// LineRequest asks for Quantity of SKU; an empty Location lets placement
// choose by the reservation's strategy. SKU may name a bundle, which
// reserves its components.
type LineRequest struct {
	SKU      string
	Quantity int64
	Location string
	Pool     string
}

// Reserve holds stock for an order, all lines or none.
type Reserve struct {
	Lines []LineRequest
	TTL   time.Duration
	// Commit reserves and confirms in one step (deduct at payment).
	Commit bool
	// Strategy places lines that name no location; empty means
	// StrategyPriority.
	Strategy string
	// CustomerID, when set, subjects the order to the purchase limits of
	// its SKUs and campaign pools.
	CustomerID string
}

// Placement strategies for lines that name no location.
const (
	// StrategyPriority puts each line whole in the first active location,
	// by priority, that can hold it.
	StrategyPriority = "priority"
	// StrategySingleLocation prefers one location that can hold every line
	// of the order, to ship in one parcel, and falls back to
	// StrategyPriority when none can.
	StrategySingleLocation = "single_location"
	// StrategySplit may split a line across locations, by priority.
	StrategySplit = "split"
)

// Transition moves a reservation: confirm, release, expire or fulfil.
type Transition struct {
	ReservationID string
	Reason        string
}

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
	// Pending is true when the command was accepted but waits for another
	// party (an adjustment waiting for approval).
	Pending bool `json:"pending,omitempty"`
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
	Result      []byte // JSON of Result
	CreatedAt   time.Time
}
