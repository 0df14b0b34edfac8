package stockd

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Scope is a permission an API key holds. Every endpoint under /v1 needs
// exactly one scope; a key holds any set of them.
type Scope string

const (
	// ScopeRead reads SKUs, locations, stock, reservations, the ledger and
	// events.
	ScopeRead Scope = "read"
	// ScopeReserve is for order services: reserve, confirm, release, fulfil.
	ScopeReserve Scope = "reserve"
	// ScopeStock changes what is on hand: SKUs, receipts, adjustments.
	ScopeStock Scope = "stock"
	// ScopeApprove approves pending adjustments of another key.
	ScopeApprove Scope = "approve"
	// ScopeAdmin manages who may act and where stock lives: keys and
	// locations.
	ScopeAdmin Scope = "admin"
)

// AllScopes returns every scope in canonical order.
func AllScopes() []Scope {
	return []Scope{ScopeRead, ScopeReserve, ScopeStock, ScopeApprove, ScopeAdmin}
}

const (
	// APIKeyPrefix starts every secret, so that a key is recognisable in a
	// config file, a log line or a secret scanner.
	APIKeyPrefix = "sk_"
	// apiKeySecretBytes is the entropy of a secret: 256 bits, beyond any
	// guessing, so that one SHA-256 (not a slow password hash) is enough to
	// store it.
	apiKeySecretBytes = 32
	// apiKeyIDBytes makes key ids of 16 characters: unique among
	// APIKeysMax keys by a wide margin, short enough for a ledger's actor.
	apiKeyIDBytes = 10
	// apiKeyPrefixShownLength is how much of the secret after "sk_" a key's
	// Prefix keeps: enough for a human to tell keys apart and to find a
	// leaked one, 40 bits of 256, of no help in guessing the rest.
	apiKeyPrefixShownLength = 8
	// apiKeyIDPrefix makes a key id recognisable as one in the ledger.
	apiKeyIDPrefix = "key_"
)

// apiKeyEncoding writes secrets and ids in lowercase base32 without
// padding: nothing to escape in a header, a URL or a shell, and no
// look-alike characters (0/O, 1/l) to copy wrong.
var apiKeyEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// APIKeyHash is the SHA-256 of a secret: all that storage keeps of it.
type APIKeyHash [sha256.Size]byte

// apiKeySecretLength is the length of a whole secret, prefix included.
var apiKeySecretLength = len(APIKeyPrefix) + apiKeyEncoding.EncodedLen(apiKeySecretBytes)

// APIKey is a caller's credential, without its secret: only the SHA-256 of
// the secret is stored, and the secret is shown once, when the key is made.
type APIKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Prefix is "sk_" and the first 8 characters of the secret after it.
	Prefix    string    `json:"prefix"`
	Scopes    []Scope   `json:"scopes"`
	CreatedAt time.Time `json:"created_at"`
	// RevokedAt is zero while the key is live.
	RevokedAt time.Time `json:"revoked_at,omitzero"`
}

// Has reports whether the key holds scope s.
func (k APIKey) Has(s Scope) bool { return slices.Contains(k.Scopes, s) }

// Revoked reports whether the key has been revoked.
func (k APIKey) Revoked() bool { return !k.RevokedAt.IsZero() }

// NewAPIKey makes a key named name with the scopes named: it returns the
// key to store, the secret to show once, and the secret's hash to store
// with the key. Bad input is an *Error; a failure of the system's random
// source is another error.
func NewAPIKey(name string, scopeNames []string, now time.Time) (key APIKey, secret string, hash APIKeyHash, err error) {
	if verr := validAPIKeyName(name); verr != nil {
		return APIKey{}, "", hash, verr
	}
	scopes, verr := ParseScopes(scopeNames)
	if verr != nil {
		return APIKey{}, "", hash, verr
	}
	secretBytes := make([]byte, apiKeySecretBytes)
	if _, err := rand.Read(secretBytes); err != nil {
		return APIKey{}, "", hash, fmt.Errorf("random api key secret: %w", err)
	}
	idBytes := make([]byte, apiKeyIDBytes)
	if _, err := rand.Read(idBytes); err != nil {
		return APIKey{}, "", hash, fmt.Errorf("random api key id: %w", err)
	}
	secret = APIKeyPrefix + apiKeyEncoding.EncodeToString(secretBytes)
	key = APIKey{
		ID:        apiKeyIDPrefix + apiKeyEncoding.EncodeToString(idBytes),
		Name:      name,
		Prefix:    secret[:len(APIKeyPrefix)+apiKeyPrefixShownLength],
		Scopes:    scopes,
		CreatedAt: now.UTC().Truncate(time.Microsecond),
	}
	return key, secret, HashAPIKey(secret), nil
}

// HashAPIKey is what storage keeps of a secret, and what a presented
// secret is looked up by.
func HashAPIKey(secret string) APIKeyHash {
	return sha256.Sum256([]byte(secret))
}

// WellFormedAPIKey reports whether s has the shape of a secret: "sk_" and
// 52 characters of lowercase base32. It says nothing about whether the key
// exists.
func WellFormedAPIKey(s string) bool {
	rest, ok := strings.CutPrefix(s, APIKeyPrefix)
	if !ok || len(s) != apiKeySecretLength {
		return false
	}
	for i := 0; i < len(rest); i++ {
		c := rest[i]
		if !(c >= 'a' && c <= 'z' || c >= '2' && c <= '7') {
			return false
		}
	}
	return true
}

// ParseScopes checks scope names: one to APIKeyScopesMax, each known and
// given once. It returns them in canonical order, so that two keys with
// the same scopes store and show them alike.
func ParseScopes(names []string) ([]Scope, *Error) {
	if len(names) == 0 || len(names) > APIKeyScopesMax {
		return nil, InvalidField("scopes", "must hold 1 to %d scopes", APIKeyScopesMax)
	}
	seen := make(map[Scope]bool, len(names))
	for _, name := range names {
		s := Scope(name)
		if !slices.Contains(AllScopes(), s) {
			return nil, InvalidField("scopes", "%q is not one of %s", name, scopeList())
		}
		if seen[s] {
			return nil, InvalidField("scopes", "%q is given twice", name)
		}
		seen[s] = true
	}
	scopes := make([]Scope, 0, len(names))
	for _, s := range AllScopes() {
		if seen[s] {
			scopes = append(scopes, s)
		}
	}
	return scopes, nil
}

func scopeList() string {
	names := make([]string, 0, APIKeyScopesMax)
	for _, s := range AllScopes() {
		names = append(names, string(s))
	}
	return strings.Join(names, ", ")
}

// validAPIKeyName accepts 1-64 printable ASCII characters: the name shows
// in listings and logs, where control characters could forge lines.
func validAPIKeyName(name string) *Error {
	if len(name) == 0 || len(name) > APIKeyNameLengthMax {
		return InvalidField("name", "must be 1-%d printable ASCII characters", APIKeyNameLengthMax)
	}
	for i := 0; i < len(name); i++ {
		if name[i] < 0x20 || name[i] > 0x7e {
			return InvalidField("name", "must be 1-%d printable ASCII characters", APIKeyNameLengthMax)
		}
	}
	return nil
}
