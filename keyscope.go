package stockd

import "strings"

// Idempotency keys are scoped to the API key that sent them, as Stripe
// scopes them per account: a second API key's request under the same
// Idempotency-Key is its own request, decided afresh, not a replay of the
// first key's answer (nor idempotency_key_reused). The scope is part of
// the key the answer is stored under (Command.IdempotencyKey), so that the
// unique keys of both schemas separate the two as they always did.

// keyScopeSeparator joins an API key's id and the caller's key. It is not
// ASCII, and an Idempotency-Key is, so a stored key splits one way only.
const keyScopeSeparator = "\u241f"

// ScopedKey is the key an answer to key, sent with the API key keyID, is
// stored under. A server running open has no API key: its keys are stored
// as sent, as every key was before scoping.
func ScopedKey(keyID, key string) string {
	if keyID == "" || key == "" {
		return key
	}
	return keyID + keyScopeSeparator + key
}

// UnscopedKey is the caller's key within a stored key.
func UnscopedKey(stored string) string {
	if _, key, ok := strings.Cut(stored, keyScopeSeparator); ok {
		return key
	}
	return stored
}

// LookupKeys lists the stored keys c may be answered from, in order: its
// own, then, for a scoped key, the key as sent. Answers stored before keys
// were scoped, or while the server ran open, are stored under the key as
// sent and replay to any API key, as they did when they were stored; every
// answer stored under an API key since is its alone.
func (c *Command) LookupKeys() []string {
	if c.IdempotencyKey == "" {
		return nil
	}
	if key := UnscopedKey(c.IdempotencyKey); key != c.IdempotencyKey {
		return []string{c.IdempotencyKey, key}
	}
	return []string{c.IdempotencyKey}
}

// validStoredKey reports whether stored is an Idempotency-Key, alone or
// within the id of an API key.
func validStoredKey(stored string) bool {
	scope, key, scoped := strings.Cut(stored, keyScopeSeparator)
	if !scoped {
		return ValidIdempotencyKey(stored)
	}
	return ValidIdentifier(scope) && ValidIdempotencyKey(key)
}
