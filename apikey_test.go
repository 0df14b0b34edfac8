package stockd

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestNewAPIKey(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 123456789, time.FixedZone("CET", 3600))
	key, secret, hash, err := NewAPIKey("orders", []string{"reserve", "read"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if !WellFormedAPIKey(secret) || len(secret) != 55 {
		t.Errorf("secret %q is not sk_ and 52 base32 characters", secret)
	}
	if key.Prefix != secret[:11] || !strings.HasPrefix(key.Prefix, "sk_") {
		t.Errorf("prefix %q, want the first 11 characters of %q", key.Prefix, secret)
	}
	if hash != HashAPIKey(secret) {
		t.Error("hash is not the SHA-256 of the secret")
	}
	if len(key.Scopes) != 2 || key.Scopes[0] != ScopeRead || key.Scopes[1] != ScopeReserve {
		t.Errorf("scopes %v, want [read reserve] in canonical order", key.Scopes)
	}
	if !ValidIdentifier(key.ID) || !strings.HasPrefix(key.ID, "key_") {
		t.Errorf("id %q is not a key_ identifier", key.ID)
	}
	if want := now.UTC().Truncate(time.Microsecond); !key.CreatedAt.Equal(want) || key.CreatedAt.Location() != time.UTC {
		t.Errorf("created_at %v, want %v in UTC", key.CreatedAt, want)
	}
	if key.Revoked() || !key.Has(ScopeRead) || key.Has(ScopeAdmin) {
		t.Errorf("key %+v: want live, with read and without admin", key)
	}
	other, otherSecret, _, err := NewAPIKey("orders", []string{"read"}, now)
	if err != nil {
		t.Fatal(err)
	}
	if other.ID == key.ID || otherSecret == secret {
		t.Error("two keys share an id or a secret")
	}
}

func TestNewAPIKeyRefusesBadInput(t *testing.T) {
	for _, c := range []struct {
		name   string
		scopes []string
		field  string
	}{
		{"", []string{"read"}, "name"},
		{strings.Repeat("n", APIKeyNameLengthMax+1), []string{"read"}, "name"},
		{"tab\there", []string{"read"}, "name"},
		{"orders", nil, "scopes"},
		{"orders", []string{"read", "write"}, "scopes"},
		{"orders", []string{"read", "read"}, "scopes"},
		{"orders", []string{"read", "reserve", "stock", "approve", "admin", "read"}, "scopes"},
	} {
		_, _, _, err := NewAPIKey(c.name, c.scopes, time.Now())
		e, ok := err.(*Error)
		if !ok || e.Code != CodeInvalidInput || e.Field != c.field {
			t.Errorf("NewAPIKey(%q, %v) error = %v, want invalid_input on %s", c.name, c.scopes, err, c.field)
		}
	}
	if APIKeyScopesMax != len(AllScopes()) {
		t.Errorf("APIKeyScopesMax %d, want one per scope (%d)", APIKeyScopesMax, len(AllScopes()))
	}
}

func TestWellFormedAPIKey(t *testing.T) {
	good := "sk_" + strings.Repeat("a2", 26)
	for s, want := range map[string]bool{
		good:                                   true,
		"":                                     false,
		"sk_":                                  false,
		good[:len(good)-1]:                     false,
		good + "a":                             false,
		"SK_" + good[3:]:                       false,
		"sk_" + strings.Repeat("A2", 26):       false,
		"sk_" + strings.Repeat("a1", 26):       false,
		"pk_" + strings.Repeat("a2", 26):       false,
		"sk_" + strings.Repeat("a2", 25) + "é": false,
	} {
		if got := WellFormedAPIKey(s); got != want {
			t.Errorf("WellFormedAPIKey(%q) = %v, want %v", s, got, want)
		}
	}
}

func TestNewAuditEventCutsText(t *testing.T) {
	long := strings.Repeat("é", AuditTextLengthMax)
	e := NewAuditEvent(time.Now(), "key_x", "sku_create", long, AuditOutcomeForbidden, "")
	if len(e.Resource) > AuditTextLengthMax || !utf8.ValidString(e.Resource) || !strings.HasPrefix(long, e.Resource) {
		t.Errorf("resource cut to %d bytes, valid UTF-8 %v; want at most %d, valid", len(e.Resource), utf8.ValidString(e.Resource), AuditTextLengthMax)
	}
}
