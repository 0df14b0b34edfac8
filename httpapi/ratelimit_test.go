package httpapi

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/stockd/stockd"
)

// TestLimiterSetBounded checks that a full set forgets refilled buckets
// first, keeping the debt of busy ones.
func TestLimiterSetBounded(t *testing.T) {
	start := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	l := newLimiterSet(1, 1, 2)
	if _, ok := l.take(start, "idle"); !ok {
		t.Fatal("first take of idle refused")
	}
	later := start.Add(2 * time.Second)
	if _, ok := l.take(later, "busy"); !ok {
		t.Fatal("first take of busy refused")
	}
	if _, ok := l.take(later, "new"); !ok {
		t.Fatal("first take of new refused")
	}
	if len(l.buckets) != 2 || l.buckets["idle"] != nil {
		t.Fatalf("buckets %v, want busy and new (idle had refilled)", l.buckets)
	}
	if wait, ok := l.take(later, "busy"); ok || wait != time.Second {
		t.Fatalf("busy again: ok %v, wait %v; want refused for 1s", ok, wait)
	}
}

// TestLimiterSetAllOrNothing checks that a refusal takes no token.
func TestLimiterSetAllOrNothing(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	l := newLimiterSet(1, 1, 10)
	l.take(now, "hot")
	if _, ok := l.take(now, "cold", "hot"); ok {
		t.Fatal("hot had no token left, yet the pair was allowed")
	}
	if _, ok := l.take(now, "cold"); !ok {
		t.Fatal("the refused pair took cold's token")
	}
}

// TestKeyCacheBounded checks that the cache never holds more than its
// bound, and forgets a revoked key's lookups.
func TestKeyCacheBounded(t *testing.T) {
	now := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	c := newKeyCache(time.Minute)
	for i := range keyCacheEntriesMax + 10 {
		var hash stockd.APIKeyHash
		binary.BigEndian.PutUint64(hash[:], uint64(i))
		c.put(hash, cachedKey{found: true, key: stockd.APIKey{ID: "key_x"}}, now)
	}
	if len(c.entries) > keyCacheEntriesMax {
		t.Fatalf("%d entries, bound %d", len(c.entries), keyCacheEntriesMax)
	}
	c.forget("key_x")
	if len(c.entries) != 0 {
		t.Fatalf("%d entries after forgetting the only key", len(c.entries))
	}
}
