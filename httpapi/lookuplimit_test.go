package httpapi

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// countingStore counts key lookups.
type countingStore struct {
	store.Store
	lookups *atomic.Int64
}

func (c countingStore) KeyGetByHash(ctx context.Context, hash stockd.APIKeyHash) (stockd.APIKey, error) {
	c.lookups.Add(1)
	return c.Store.KeyGetByHash(ctx, hash)
}

// TestKeyLookupsLimitedPerAddress: made-up keys each cost a database
// lookup, and had no limit. Now an address that presents more unknown keys
// than its budget gets 429 with Retry-After before any lookup, while a key
// the server already knows keeps working from that address.
func TestKeyLookupsLimitedPerAddress(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		var lookups atomic.Int64
		h := newHarness(t, b, func(c *Config) {
			c.Store = countingStore{Store: c.Store, lookups: &lookups}
			c.UnauthenticatedLookupsPerSecond = 5 // bursts of 10; the harness clock stands still
		})
		h.seed(1, "A")
		_, secret := h.storeKey("reader", stockd.ScopeRead)
		h.expect("GET", "/v1/skus/A", "", http.StatusOK, bearer(secret)) // one lookup, then cached
		var unauthorized, limited int
		for range 50 {
			_, unknown, _, err := stockd.NewAPIKey("made up", []string{"read"}, h.clock.Now())
			if err != nil {
				t.Fatal(err)
			}
			a := h.sendHeaders("GET", "/v1/skus/A", nil, bearer(unknown))
			switch a.status {
			case http.StatusUnauthorized:
				unauthorized++
			case http.StatusTooManyRequests:
				limited++
				if p := a.problem(t); p.Code != stockd.CodeRateLimited || a.header.Get("Retry-After") == "" {
					t.Fatalf("limited lookup: %s Retry-After %q, want rate_limited with Retry-After", p.Code, a.header.Get("Retry-After"))
				}
			default:
				t.Fatalf("made-up key: %d %s", a.status, a.body)
			}
		}
		if unauthorized != 9 || limited != 41 {
			t.Errorf("%d answered 401 and %d 429, want the burst of 10 (one spent on the real key) then 429", unauthorized, limited)
		}
		if n := lookups.Load(); n != 10 {
			t.Errorf("%d key lookups for 51 requests, want 10: the limit must come before the lookup", n)
		}
		h.expect("GET", "/v1/skus/A", "", http.StatusOK, bearer(secret))
	})
}
