package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/stockd/stockd"
)

const (
	headerIdempotencyKey = "Idempotency-Key"
	headerReplayed       = "Idempotent-Replayed"
	headerActor          = "X-Actor"

	// actorLengthMax bounds the X-Actor header, which lands in every ledger
	// entry the request writes.
	actorLengthMax = 64
)

// idempotencyKey returns the request's Idempotency-Key, which every
// mutation must carry.
func idempotencyKey(r *http.Request) (string, *stockd.Error) {
	values := r.Header.Values(headerIdempotencyKey)
	if len(values) == 0 {
		return "", stockd.Errorf(stockd.CodeIdempotencyKeyMissing, "the %s header is required on every mutation", headerIdempotencyKey)
	}
	if len(values) > 1 || !stockd.ValidIdempotencyKey(values[0]) {
		return "", stockd.Errorf(stockd.CodeIdempotencyKeyInvalid, "%s must be one value of 1-%d printable ASCII characters", headerIdempotencyKey, stockd.IdempotencyKeyLengthMax)
	}
	return values[0], nil
}

// actor returns the X-Actor header, or "" when absent.
func actor(r *http.Request) (string, *stockd.Error) {
	a := r.Header.Get(headerActor)
	if len(a) > actorLengthMax {
		return "", stockd.InvalidField(headerActor, "longer than %d characters", actorLengthMax)
	}
	for i := 0; i < len(a); i++ {
		if a[i] < 0x20 || a[i] > 0x7e {
			return "", stockd.InvalidField(headerActor, "must be printable ASCII")
		}
	}
	return a, nil
}

// requestHash fingerprints a mutation: method, path and the decoded request
// re-encoded. Re-encoding the decoded struct, rather than hashing the raw
// body, makes whitespace and field order irrelevant, so a client that
// re-serializes its retry still gets a replay and not key_reused.
func requestHash(r *http.Request, decoded any) string {
	canonical, err := json.Marshal(decoded)
	if err != nil {
		panic("httpapi: request not encodable: " + err.Error())
	}
	h := sha256.New()
	h.Write([]byte(r.Method))
	h.Write([]byte{' '})
	h.Write([]byte(r.URL.Path))
	h.Write([]byte{'\n'})
	h.Write(canonical)
	// A condition is part of the request: the same change under another
	// If-Match is another request. Absent, the fingerprint is what it was
	// before conditions existed, so stored keys still replay.
	if v := r.Header.Values(headerIfMatch); len(v) > 0 {
		h.Write([]byte("\n" + headerIfMatch + ": " + strings.Join(v, ", ")))
	}
	var sum [sha256.Size]byte
	var digits [2 * sha256.Size]byte
	hex.Encode(digits[:], h.Sum(sum[:0]))
	return string(digits[:])
}
