package stockd

import (
	"slices"
	"testing"
)

func TestKeyScope(t *testing.T) {
	tests := []struct {
		keyID, key string
		stored     string
		lookup     []string
	}{
		{"", "pay-1", "pay-1", []string{"pay-1"}},
		{"key_a", "pay-1", "key_a\u241fpay-1", []string{"key_a\u241fpay-1", "pay-1"}},
		{"key_a", "a/b c", "key_a\u241fa/b c", []string{"key_a\u241fa/b c", "a/b c"}},
		{"key_a", "", "", nil},
	}
	for _, tt := range tests {
		stored := ScopedKey(tt.keyID, tt.key)
		c := Command{IdempotencyKey: stored}
		if stored != tt.stored || UnscopedKey(stored) != tt.key || !slices.Equal(c.LookupKeys(), tt.lookup) {
			t.Errorf("ScopedKey(%q, %q) = %q (caller's %q, lookup %q); want %q, lookup %q", tt.keyID, tt.key, stored, UnscopedKey(stored), c.LookupKeys(), tt.stored, tt.lookup)
		}
		if tt.key != "" && !validStoredKey(stored) {
			t.Errorf("validStoredKey(%q) = false", stored)
		}
	}
	for _, bad := range []string{"a b\u241fk", "key_a\u241f", "\u241fk", "key_a\u241fk\u241fk", "k\x00"} {
		if validStoredKey(bad) {
			t.Errorf("validStoredKey(%q) = true", bad)
		}
	}
}

// TestReplayScoped: the same key from another API key is decided afresh;
// an answer stored unscoped (open, or before scoping) replays to anyone.
func TestReplayScoped(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 10})
	cmd := func(keyID, key string) Command {
		c := reserve(ScopedKey(keyID, key), LineRequest{SKU: "a", Quantity: 1})
		c.RequestHash = "same body"
		c.KeyID = keyID
		return c
	}
	res := s.Apply([]Command{cmd("", "open-1"), cmd("key_a", "k"), cmd("key_b", "k"), cmd("key_a", "k"), cmd("key_b", "open-1")})
	for i, want := range []bool{false, false, false, true, true} {
		if res[i].Err != nil || res[i].Replayed != want {
			t.Fatalf("command %d: %+v, want replayed %v", i, res[i], want)
		}
	}
	if got := s.Positions[pk("a", "w1")].Reserved; got != 3 {
		t.Fatalf("reserved %d, want 3: open-1, and k once for each API key", got)
	}
}
