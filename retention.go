package stockd

import (
	"encoding/json"
	"fmt"
	"time"
)

// Retention of idempotency answers. A stored first answer is replayed in
// full for the retention; after it, PruneAnswer cuts it down to its
// outcome (applied, pending, or refused with its code). The key itself is
// never deleted: the books name it (a reservation's key, a receipt's
// business id), and a late retry of the same request must find it spent,
// not apply again.

// PruneAnswer returns the stored answer result (the JSON of a Result) cut
// down to its outcome: a refusal keeps its code, a success whether it
// created or is pending; every body (reservation, document, message) is
// dropped.
func PruneAnswer(result []byte) ([]byte, error) {
	var r Result
	if err := json.Unmarshal(result, &r); err != nil {
		return nil, fmt.Errorf("stored answer not decodable: %w", err)
	}
	outcome := Result{Created: r.Created, Pending: r.Pending}
	if r.Err != nil {
		outcome = Result{Err: &Error{Code: r.Err.Code}}
	}
	out, err := json.Marshal(outcome)
	if err != nil {
		return nil, fmt.Errorf("encode pruned answer: %w", err)
	}
	return out, nil
}

// PrunedRefusal answers the same request sent again under a key whose
// answer was pruned.
func PrunedRefusal(key string, createdAt time.Time) *Error {
	return Errorf(CodeAnswerPruned,
		"the request under idempotency key %q was decided at %s and its answer is past the retention: it is not applied again; GET /v1/requests/{key} gives its outcome",
		key, createdAt.UTC().Format(time.RFC3339))
}

// ValidIdempotencyRetention reports whether d is an allowed retention of
// idempotency answers: zero (keep every answer) or between
// IdempotencyRetentionMin and IdempotencyRetentionMax.
func ValidIdempotencyRetention(d time.Duration) bool {
	return d == 0 || (d >= IdempotencyRetentionMin && d <= IdempotencyRetentionMax)
}
