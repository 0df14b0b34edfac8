package stockd

import (
	"errors"
	"fmt"
)

// Error codes are stable: callers branch on them, and the HTTP layer maps
// each to one status (httpapi.statusOf).
const (
	CodeInvalidInput          = "invalid_input"             // malformed or out-of-bounds field
	CodeInvalidJSON           = "invalid_json"              // body is not the JSON we accept
	CodeBodyTooLarge          = "body_too_large"            // body above BodySizeMax
	CodeUnsupportedMediaType  = "unsupported_media_type"    // a body that says it is not JSON
	CodeIdempotencyKeyMissing = "idempotency_key_missing"   // mutation without a key
	CodeIdempotencyKeyInvalid = "idempotency_key_invalid"   // key too long or not printable ASCII
	CodeIdempotencyKeyReused  = "idempotency_key_reused"    // same key, different request
	CodeUnprocessable         = "unprocessable"             // well-formed JSON that means nothing
	CodeUnknownSKU            = "unknown_sku"               // SKU never created
	CodeUnknownLocation       = "unknown_location"          // location never created
	CodeUnknownPool           = "unknown_pool"              // stock sent to a pool never created
	CodeNotFound              = "not_found"                 // reservation or other resource
	CodeAlreadyExists         = "already_exists"            // SKU or location id taken with other data
	CodeInsufficientStock     = "insufficient_stock"        // not enough available
	CodeStaleQuantity         = "stale_quantity"            // compare-and-set lost
	CodeInvalidTransition     = "invalid_transition"        // reservation is in another state
	CodeReservationExpired    = "reservation_expired"       // confirm arrived after the deadline
	CodeOverloaded            = "overloaded"                // queue full: retry later
	CodeCancelled             = "cancelled"                 // caller gave up before the batch formed
	CodeInternal              = "internal"                  // our fault; details only in the log, under the answer's incident id
	CodeDatabaseUnavailable   = "database_unavailable"      // the database does not answer or refuses work: retry later
	CodeTimeout               = "timeout"                   // the server's deadline for the request passed: retry with the same key
	CodeHalted                = "halted"                    // the engine stopped on a broken invariant of the books: an operator must look
	CodeUnauthorized          = "unauthorized"              // no valid API key: missing, malformed, unknown or revoked
	CodeForbidden             = "forbidden"                 // the key lacks the scope the endpoint needs
	CodeRateLimited           = "rate_limited"              // the key's or the SKU's request budget is spent: retry later
	CodePurchaseLimitExceeded = "purchase_limit_exceeded"   // the customer's pending + confirmed quantity would pass a limit
	CodeCampaignNotActive     = "campaign_not_active"       // a campaign pool named outside its window, or closed
	CodeLocationInactive      = "location_inactive"         // a line names a location switched off
	CodeDeductionTiming       = "deduction_timing"          // the SKU's deduction timing does not allow this hold
	CodeSelfApproval          = "self_approval"             // the requester of an adjustment tried to approve it
	CodeQuantityExceeded      = "quantity_exceeded"         // more than is open: returned, received, released or moved
	CodeUnknownDiscrepancy    = "unknown_discrepancy"       // a discrepancy id no pass recorded
	CodeDiscrepancyClosed     = "discrepancy_closed"        // an adjustment names a discrepancy a later pass no longer saw
	CodeDuplicateOrder        = "duplicate_order"           // the order holds a reservation already, under another idempotency key
	CodeDuplicateReference    = "duplicate_reference"       // the document's reference was booked already, under another idempotency key
	CodeGateUnavailable       = "gate_unavailable"          // the Redis gate does not answer, or a preheat pauses it: retry later
	CodeGateClosed            = "gate_closed"               // the gate refused a position after a win the database refused: an operator re-preheats
	CodeNotPersisted          = "reservation_not_persisted" // a gated win not yet in the database: retry shortly
	CodeInvalidCSV            = "invalid_csv"               // an imported file with bad lines: nothing of it was written (LineErrors)
	CodeImportIncomplete      = "import_incomplete"         // rows of an import refused while applying: the rest applied (LineErrors); send the file again
	CodeAsOfArchived          = "as_of_archived"            // as_of lies before the ledger's archive cut: the entries are in the archive file
	CodeAnswerPruned          = "answer_pruned"             // the key's first answer is past the retention: its outcome is kept, its body dropped
	CodePreconditionFailed    = "precondition_failed"       // If-Match names a version of the settings other than the current one
)

// ErrNotFound is what storage returns for a missing row.
var ErrNotFound = errors.New("not found")

// ErrLimitReached is what storage returns when a write would pass one of
// the bounds of limits.go that only the database can count (APIKeysMax).
var ErrLimitReached = errors.New("limit reached")

// ErrHalted is what the engine answers once it has stopped on a broken
// invariant of the books (see BrokenInvariant).
var ErrHalted = errors.New("engine halted: an invariant of the books broke")

// BrokenInvariant is the panic value of a decision that would break the
// books: a counter below zero or above its bound. It is a bug, and the
// engine stops on it rather than write anything else, where any other panic
// fails only the command (or batch) it happened in.
type BrokenInvariant struct {
	Detail string
}

func (b BrokenInvariant) Error() string { return "broken invariant: " + b.Detail }

func brokenInvariant(format string, args ...any) {
	panic(BrokenInvariant{Detail: fmt.Sprintf(format, args...)})
}

// Incident is a failure of ours, answered with only its ID: the log holds
// the rest under that ID, the stack of a panic included, so that an
// operator can find what one caller saw.
type Incident struct {
	ID  string
	Err error
}

func (i *Incident) Error() string { return "incident " + i.ID + ": " + i.Err.Error() }
func (i *Incident) Unwrap() error { return i.Err }

// Error is an application error: a stable code, a message fit for the
// caller, and the details the code promises.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Lines lists the failing lines of an insufficient_stock error.
	Lines []Shortfall `json:"lines,omitempty"`
	// Status is the reservation's current status for invalid_transition and
	// reservation_expired.
	Status ReservationStatus `json:"status,omitempty"`
	// Field names the offending input field, where there is one.
	Field string `json:"field,omitempty"`
	// ExistingID names what holds the business number of duplicate_order
	// (the reservation) and duplicate_reference (the business id of the
	// first document).
	ExistingID string `json:"existing_id,omitempty"`
	// LineErrors names the lines of an imported file at fault, for
	// invalid_csv and import_incomplete.
	LineErrors []LineError `json:"line_errors,omitempty"`
	// ExceptionID names the exception a late confirm's
	// reservation_expired recorded (or found recorded).
	ExceptionID string `json:"exception_id,omitempty"`
}

// LineError is one line of an imported file (the header is line 1) and
// what is wrong with it.
type LineError struct {
	Line   int    `json:"line"`
	Detail string `json:"detail"`
}

// Shortfall describes one line that could not be served.
type Shortfall struct {
	SKU       string `json:"sku"`
	Location  string `json:"location,omitempty"`
	Pool      string `json:"pool"`
	Requested int64  `json:"requested"`
	Available int64  `json:"available"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf builds an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// InvalidField reports a bad input field.
func InvalidField(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidInput, Field: field, Message: field + ": " + fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of an *Error in err's chain, or CodeInternal.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
