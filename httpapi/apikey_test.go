package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// TestKeysEndpoints walks a key's life through the API: the first key is
// created on the open server and closes it, its secret is shown once, its
// id becomes the ledger's actor, and a revocation holds at once.
func TestKeysEndpoints(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		var admin CreatedAPIKey
		a := h.must("POST", "/v1/keys", "", `{"name":"admin","scopes":["admin","read"]}`, http.StatusCreated, &admin)
		if !stockd.WellFormedAPIKey(admin.Secret) || admin.Prefix != admin.Secret[:11] || a.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("created %+v, Cache-Control %q; want a well-formed secret, its prefix, no-store", admin, a.header.Get("Cache-Control"))
		}
		// The first key closed the server at once.
		h.expect("GET", "/v1/keys", "", http.StatusUnauthorized, nil)

		var orders CreatedAPIKey
		a = h.expect("POST", "/v1/keys", `{"name":"orders","scopes":["reserve","read"]}`, http.StatusCreated, bearer(admin.Secret))
		if err := json.Unmarshal(a.body, &orders); err != nil {
			t.Fatal(err)
		}
		if len(orders.Scopes) != 2 || orders.Scopes[0] != "read" || orders.Scopes[1] != "reserve" {
			t.Fatalf("scopes %v, want [read reserve]", orders.Scopes)
		}
		var list APIKeyList
		a = h.expect("GET", "/v1/keys", "", http.StatusOK, bearer(admin.Secret))
		if err := json.Unmarshal(a.body, &list); err != nil {
			t.Fatal(err)
		}
		if len(list.Keys) != 2 || list.Keys[0].ID != admin.ID || list.Keys[1].ID != orders.ID {
			t.Fatalf("keys %+v, want admin then orders", list.Keys)
		}
		if bytes.Contains(a.body, []byte(admin.Secret)) || bytes.Contains(a.body, []byte(orders.Secret)) || bytes.Contains(a.body, []byte(`"secret"`)) {
			t.Fatalf("the list shows a secret: %s", a.body)
		}

		// The key is the actor, unless X-Actor names one.
		h.expect("POST", "/v1/reservations", `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusCreated,
			bearer(orders.Secret, headerIdempotencyKey, "by-key"))
		h.expect("POST", "/v1/reservations", `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusCreated,
			bearer(orders.Secret, headerIdempotencyKey, "by-actor", headerActor, "checkout-7"))
		entries, err := h.store.LedgerList(t.Context(), store.LedgerListParams{SKU: "A"})
		if err != nil {
			t.Fatal(err)
		}
		if n := len(entries); n < 2 || entries[n-2].Actor != orders.ID || entries[n-1].Actor != "checkout-7" {
			t.Fatalf("ledger actors %+v, want %s then checkout-7", entries, orders.ID)
		}

		var revoked, again APIKey
		a = h.expect("POST", "/v1/keys/"+orders.ID+"/revoke", "", http.StatusOK, bearer(admin.Secret))
		if err := json.Unmarshal(a.body, &revoked); err != nil || revoked.RevokedAt == nil {
			t.Fatalf("revoke answered %s, %v; want the key with revoked_at", a.body, err)
		}
		h.expect("GET", "/v1/skus/A", "", http.StatusUnauthorized, bearer(orders.Secret))
		a = h.expect("POST", "/v1/keys/"+orders.ID+"/revoke", "", http.StatusOK, bearer(admin.Secret))
		if err := json.Unmarshal(a.body, &again); err != nil || again.RevokedAt == nil || !again.RevokedAt.Equal(*revoked.RevokedAt) {
			t.Fatalf("revoke again answered %s, %v; want revoked_at %v kept", a.body, err, revoked.RevokedAt)
		}

		events, err := h.store.AuditEventList(t.Context(), store.AuditEventListParams{})
		if err != nil {
			t.Fatal(err)
		}
		var trail []string
		for _, e := range events {
			trail = append(trail, e.Action+" "+e.Resource+" by "+e.KeyID)
		}
		want := []string{
			"key_create " + admin.ID + " by ",
			"key_create " + orders.ID + " by " + admin.ID,
			"key_revoke " + orders.ID + " by " + admin.ID,
			"key_revoke " + orders.ID + " by " + admin.ID,
		}
		if len(trail) != len(want) {
			t.Fatalf("audit trail %q, want %q", trail, want)
		}
		for i := range want {
			if trail[i] != want[i] {
				t.Fatalf("audit trail %q, want %q", trail, want)
			}
		}
	})
}

// TestOpenUntilFirstKey checks the two ways a server closes: a key created
// elsewhere (the command line) is seen within the key cache's lifetime,
// and RequireKeys closes a server with no key at all.
func TestOpenUntilFirstKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(1, "A")
		key, _, hash, err := stockd.NewAPIKey("cli", []string{"read"}, h.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		if err := h.store.KeyCreate(t.Context(), store.KeyCreateParams{Key: key, Hash: hash}); err != nil {
			t.Fatal(err)
		}
		h.expect("GET", "/v1/skus/A", "", http.StatusOK, nil)
		h.clock.Advance(keyCacheTTLDefault)
		h.expect("GET", "/v1/skus/A", "", http.StatusUnauthorized, nil)

		closed := newHarness(t, b, func(c *Config) { c.RequireKeys = true })
		closed.expect("GET", "/v1/locations", "", http.StatusUnauthorized, nil)
		closed.expect("GET", "/healthz", "", http.StatusOK, nil)
	})
}

// TestRevocationElsewhereWithinTTL checks the documented bound: a key
// revoked by another process keeps working until its cached lookup
// expires, and not after.
func TestRevocationElsewhereWithinTTL(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		key, secret := h.storeKey("reader", stockd.ScopeRead)
		h.expect("GET", "/v1/locations", "", http.StatusOK, bearer(secret))
		if _, err := h.store.KeyRevoke(t.Context(), store.KeyRevokeParams{ID: key.ID, At: h.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		h.expect("GET", "/v1/locations", "", http.StatusOK, bearer(secret))
		h.clock.Advance(keyCacheTTLDefault)
		h.expect("GET", "/v1/locations", "", http.StatusUnauthorized, bearer(secret))
	})
}

// TestRateLimits checks the per-key and per-SKU token buckets: a burst,
// then 429 with Retry-After until the bucket refills; one key's or SKU's
// budget is not another's; a refused reservation takes no token.
func TestRateLimits(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b, func(c *Config) {
			c.KeyRequestsPerSecond, c.KeyRequestsBurst = 1, 2
		})
		_, first := h.storeKey("first", stockd.ScopeRead)
		_, second := h.storeKey("second", stockd.ScopeRead)
		h.expect("GET", "/v1/locations", "", http.StatusOK, bearer(first))
		h.expect("GET", "/v1/locations", "", http.StatusOK, bearer(first))
		a := h.expect("GET", "/v1/locations", "", http.StatusTooManyRequests, bearer(first))
		if p := a.problem(t); p.Code != stockd.CodeRateLimited || a.header.Get("Retry-After") != "1" {
			t.Fatalf("%s, Retry-After %q; want rate_limited, 1", p.Code, a.header.Get("Retry-After"))
		}
		h.expect("GET", "/v1/locations", "", http.StatusOK, bearer(second))
		h.clock.Advance(time.Second)
		h.expect("GET", "/v1/locations", "", http.StatusOK, bearer(first))

		skus := newHarness(t, b, func(c *Config) {
			c.SKUReservationsPerSecond, c.SKUReservationsBurst = 1, 1
		})
		skus.seed(10, "A", "B", "C")
		reserve := func(key, body string, want int) answer {
			t.Helper()
			return skus.must("POST", "/v1/reservations", key, body, want, nil)
		}
		reserve("a-1", `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusCreated)
		a = reserve("a-2", `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusTooManyRequests)
		if p := a.problem(t); p.Code != stockd.CodeRateLimited || a.header.Get("Retry-After") != "1" {
			t.Fatalf("hot SKU: %s, Retry-After %q; want rate_limited, 1", p.Code, a.header.Get("Retry-After"))
		}
		reserve("b-1", `{"lines":[{"sku":"B","quantity":1}]}`, http.StatusCreated)
		reserve("ac-1", `{"lines":[{"sku":"C","quantity":1},{"sku":"A","quantity":1}]}`, http.StatusTooManyRequests)
		reserve("c-1", `{"lines":[{"sku":"C","quantity":1}]}`, http.StatusCreated)
		skus.clock.Advance(time.Second)
		reserve("a-2", `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusCreated)
	})
}

// TestClientPresentsKey checks that the Go client sends its key.
func TestClientPresentsKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		_, secret := h.storeKey("reader", stockd.ScopeRead)
		if _, err := NewClient(h.url, WithAPIKey(secret)).Locations(t.Context()); err != nil {
			t.Fatalf("with the key: %v", err)
		}
		_, err := NewClient(h.url).Locations(t.Context())
		requireCode(t, err, stockd.CodeUnauthorized)
	})
}

// TestFirstKeyLogged: the switch from open to keys required is logged,
// once, when this server creates the first key or finds one another
// replica created.
func TestFirstKeyLogged(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		for _, how := range []string{"created here", "found in the store"} {
			t.Run(how, func(t *testing.T) {
				var logs bytes.Buffer
				h := newHarness(t, b, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logs, nil)) })
				if how == "created here" {
					var admin CreatedAPIKey
					h.must("POST", "/v1/keys", "", `{"name":"admin","scopes":["admin"]}`, http.StatusCreated, &admin)
					h.expect("POST", "/v1/keys", `{"name":"second","scopes":["read"]}`, http.StatusCreated, bearer(admin.Secret))
				} else {
					h.storeKey("elsewhere", stockd.ScopeRead)
					h.clock.Advance(keyCacheTTLDefault)
					h.expect("GET", "/v1/locations", "", http.StatusUnauthorized, nil)
					h.expect("GET", "/v1/locations", "", http.StatusUnauthorized, nil)
				}
				if n := strings.Count(logs.String(), "no longer open"); n != 1 {
					t.Fatalf("the switch was logged %d times, want once:\n%s", n, logs.String())
				}
			})
		}
	})
}
