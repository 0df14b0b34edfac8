package stockd

import "time"

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
	Actor       string

	SKU        *SKU
	Location   *Location
	Receive    *Receive
	Adjust     *Adjust
	Reserve    *Reserve
	Transition *Transition
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
// choose the first location by priority that can hold the whole line.
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
}

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
	// Created is true when the command created the resource it returns.
	Created bool `json:"created,omitempty"`
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
