package stockd

import "time"

// Limits on everything a caller can send. Each bound is checked before a
// command reaches storage, so a request beyond one is rejected and writes
// nothing.
const (
	// QuantityMax bounds one quantity or delta: 10^12 base units keeps every
	// sum of a 100-line order far from int64 overflow.
	QuantityMax int64 = 1_000_000_000_000
	// CounterMax bounds any counter after a change, for the same reason.
	CounterMax int64 = 1 << 60

	LinesPerReservationMax = 100
	IdentifierLengthMax    = 64
	NameLengthMax          = 200
	ReferenceLengthMax     = 200
	// OrderIDLengthMax bounds a reservation's order_id, a business number
	// like a reference.
	OrderIDLengthMax        = 200
	IdempotencyKeyLengthMax = 128
	BodySizeMax             = 64 << 10

	ReservationTTLDefault = 15 * time.Minute
	ReservationTTLMin     = time.Second
	ReservationTTLMax     = 24 * time.Hour
	// ReservationHoldMax bounds how long a hold lasts from its creation,
	// extensions included: stock promised to a checkout that never ends is
	// stock no one else can buy.
	ReservationHoldMax = 7 * 24 * time.Hour

	// BatchSizeMax bounds the commands applied in one transaction; past about
	// 500-1000, p99 grows without throughput (see docs/benchmarks.md).
	BatchSizeMax = 512
	// PageSizeMax bounds every list read (ledger, events).
	PageSizeMax     = 1000
	PageSizeDefault = 100
	// LocationPriorityMax bounds the priority number of a location.
	LocationPriorityMax = 1_000_000

	// APIKeyNameLengthMax bounds the human name of an API key.
	APIKeyNameLengthMax = 64
	// APIKeyScopesMax bounds the scopes of one key: each scope at most once.
	APIKeyScopesMax = 5
	// APIKeysMax bounds the keys one database holds, revoked keys included:
	// they are kept, so that the audit trail and the ledger's actors keep
	// naming a key that exists.
	APIKeysMax = 1000
	// AuditTextLengthMax bounds each text field of an audit event; longer
	// values (a long request path) are cut.
	AuditTextLengthMax = 200

	// ApprovalThresholdDefault is the largest on_hand change an adjustment
	// makes without a second key's approval, unless the SKU sets its own.
	ApprovalThresholdDefault int64 = 100
	// TimeYearMin and TimeYearMax bound the UTC year of every time a
	// caller sends (a purchase order's expected_at, a campaign's window).
	TimeYearMin = 1
	TimeYearMax = 9999

	// DocumentSizeMax bounds one stored document (pool, bundle, limit,
	// usage, transfer, purchase order, approval) once encoded.
	DocumentSizeMax = 256 << 10

	// IdempotencyRetentionDefault is how long the first answer under an
	// idempotency key is replayed in full (30 days); after it only the
	// outcome is kept (PruneAnswer).
	IdempotencyRetentionDefault = 30 * 24 * time.Hour
	// IdempotencyRetentionMin and IdempotencyRetentionMax bound a chosen
	// retention: below a day a client retrying over a weekend outage
	// loses its answer; ten years is past any retry.
	IdempotencyRetentionMin = 24 * time.Hour
	IdempotencyRetentionMax = 10 * 365 * 24 * time.Hour
	// IdempotencyPruneBatchMax bounds the answers pruned in one
	// transaction.
	IdempotencyPruneBatchMax = 1000
)

// Defaults for the parts of a position key a caller may leave out.
const (
	LocationDefault = "default"
	PoolDefault     = "normal"
)
