package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// storeKey creates a key straight in the store, as `stockd keys create`
// does, and returns it with its secret. It then moves the clock past the
// key cache's lifetime: a server that found no key earlier (and so runs
// open) sees this one only after that.
func (h *harness) storeKey(name string, scopes ...stockd.Scope) (stockd.APIKey, string) {
	h.t.Helper()
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	key, secret, hash, err := stockd.NewAPIKey(name, names, h.clock.Now())
	if err != nil {
		h.t.Fatal(err)
	}
	if err := h.store.KeyCreate(h.t.Context(), store.KeyCreateParams{Key: key, Hash: hash}); err != nil {
		h.t.Fatal(err)
	}
	h.clock.Advance(keyCacheTTLDefault)
	return key, secret
}

// bearer returns request headers presenting secret, and more name, value
// pairs.
func bearer(secret string, more ...string) map[string]string {
	headers := map[string]string{"Authorization": "Bearer " + secret}
	for i := 0; i+1 < len(more); i += 2 {
		headers[more[i]] = more[i+1]
	}
	return headers
}

// expect makes a request that must answer want.
func (h *harness) expect(method, path, body string, want int, headers map[string]string) answer {
	h.t.Helper()
	var b []byte
	if body != "" {
		b = []byte(body)
	}
	a := h.sendHeaders(method, path, b, headers)
	if a.status != want {
		h.t.Fatalf("%s %s %s: status %d, want %d: %s", method, path, body, a.status, want, a.body)
	}
	return a
}

// scopedRoutes returns every route that needs a key, with a path that
// serves it (ids that need not exist: the key is checked first).
func (h *harness) scopedRoutes() []route {
	var routes []route
	for _, rt := range h.server.routes() {
		if rt.scope != "" {
			routes = append(routes, rt)
		}
	}
	return routes
}

func routePath(rt route) (method, path string) {
	method, path, _ = strings.Cut(rt.pattern, " ")
	return method, strings.NewReplacer("{sku}", "A", "{id}", "x1").Replace(path)
}

// exerciseKeys drives the key endpoints to every answer the document lists
// for them, then sends every scoped route without a valid key and with a
// key that lacks its scope. Its first key closes the open server, so
// TestOpenAPIResponses calls it last.
func exerciseKeys(h *harness) {
	h.t.Helper()
	var admin, victim, approver CreatedAPIKey
	h.must("POST", "/v1/keys", "", `{"name":"admin","scopes":["admin"]}`, http.StatusCreated, &admin)
	asAdmin := func(more ...string) map[string]string { return bearer(admin.Secret, more...) }
	h.expect("POST", "/v1/keys", `{"name":"","scopes":["read"]}`, http.StatusBadRequest, asAdmin())
	h.expect("POST", "/v1/keys", `{"name":"x","scopes":["read"],"expires":1}`, http.StatusBadRequest, asAdmin())
	h.expect("POST", "/v1/keys", `{"name":"`+strings.Repeat("n", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, asAdmin())
	h.expect("POST", "/v1/keys", `{"name":"x","scopes":["read"]}`, http.StatusUnprocessableEntity, asAdmin(headerTestFault, faultKeysFull))
	h.expect("GET", "/v1/keys", "", http.StatusOK, asAdmin())
	a := h.expect("POST", "/v1/keys", `{"name":"victim","scopes":["read"]}`, http.StatusCreated, asAdmin())
	if err := json.Unmarshal(a.body, &victim); err != nil {
		h.t.Fatal(err)
	}
	h.expect("POST", "/v1/keys/"+victim.ID+"/revoke", "", http.StatusOK, asAdmin())
	h.expect("POST", "/v1/keys/"+victim.ID+"/revoke", "{}", http.StatusOK, asAdmin())
	h.expect("POST", "/v1/keys/key_nope/revoke", "", http.StatusNotFound, asAdmin())
	h.expect("POST", "/v1/keys/a%3Bb/revoke", "", http.StatusBadRequest, asAdmin())
	h.expect("POST", "/v1/keys/"+victim.ID+"/revoke", `{"reason":"leaked"}`, http.StatusBadRequest, asAdmin())
	h.expect("POST", "/v1/keys/"+victim.ID+"/revoke", `{"r":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, asAdmin())
	for fault, status := range map[string]int{faultInternal: http.StatusInternalServerError, faultCancelled: http.StatusServiceUnavailable} {
		h.expect("POST", "/v1/keys", `{"name":"x","scopes":["read"]}`, status, asAdmin(headerTestFault, fault))
		h.expect("GET", "/v1/keys", "", status, asAdmin(headerTestFault, fault))
		h.expect("POST", "/v1/keys/"+admin.ID+"/revoke", "", status, asAdmin(headerTestFault, fault))
	}
	// Every route refuses a key with one scope it does not need: approve
	// for all but the approvals, read for those.
	var reader CreatedAPIKey
	a = h.expect("POST", "/v1/keys", `{"name":"approver","scopes":["approve"]}`, http.StatusCreated, asAdmin())
	if err := json.Unmarshal(a.body, &approver); err != nil {
		h.t.Fatal(err)
	}
	a = h.expect("POST", "/v1/keys", `{"name":"reader","scopes":["read"]}`, http.StatusCreated, asAdmin())
	if err := json.Unmarshal(a.body, &reader); err != nil {
		h.t.Fatal(err)
	}
	for _, rt := range h.scopedRoutes() {
		method, path := routePath(rt)
		lacking := approver.Secret
		if rt.scope == stockd.ScopeApprove {
			lacking = reader.Secret
		}
		h.expect(method, path, "", http.StatusUnauthorized, nil)
		h.expect(method, path, "", http.StatusUnauthorized, bearer(victim.Secret))
		h.expect(method, path, "", http.StatusForbidden, bearer(lacking))
	}
}

// exerciseRateLimits runs a server whose keys and SKUs may each send one
// request, then none for 1000 seconds, and shows 429 rate_limited on every
// scoped route and on a hot SKU's reservations. It returns the exchanges.
func exerciseRateLimits(t *testing.T, b testdb.Backend) []exchange {
	t.Helper()
	h := newHarness(t, b, func(c *Config) {
		c.KeyRequestsPerSecond, c.KeyRequestsBurst = 0.001, 1
		c.SKUReservationsPerSecond, c.SKUReservationsBurst = 0.001, 1
	})
	h.seed(10, "A")
	reserveOne := `{"lines":[{"sku":"A","quantity":1}]}`
	h.must("POST", "/v1/reservations", "sku-limit-1", reserveOne, http.StatusCreated, nil)
	a := h.must("POST", "/v1/reservations", "sku-limit-2", reserveOne, http.StatusTooManyRequests, nil)
	if p := a.problem(t); p.Code != stockd.CodeRateLimited || a.header.Get("Retry-After") != "1000" {
		t.Fatalf("hot SKU: %s, Retry-After %q; want rate_limited, 1000", p.Code, a.header.Get("Retry-After"))
	}
	_, secret := h.storeKey("everything", stockd.AllScopes()...)
	h.expect("GET", "/v1/locations", "", http.StatusOK, bearer(secret))
	for _, rt := range h.scopedRoutes() {
		method, path := routePath(rt)
		a := h.expect(method, path, "", http.StatusTooManyRequests, bearer(secret))
		if p := a.problem(t); p.Code != stockd.CodeRateLimited || a.header.Get("Retry-After") == "" {
			t.Fatalf("%s: %s, Retry-After %q; want rate_limited with Retry-After", rt.pattern, p.Code, a.header.Get("Retry-After"))
		}
	}
	return h.recorded()
}

// TestUnauthorizedIsOneAnswer checks that a missing, malformed, unknown or
// revoked key all get the same 401, byte for byte.
func TestUnauthorizedIsOneAnswer(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(1, "A")
		admin, adminSecret := h.storeKey("admin", stockd.ScopeAdmin, stockd.ScopeRead)
		revokedBefore, revokedBeforeSecret := h.storeKey("revoked before use", stockd.ScopeRead)
		if _, err := h.store.KeyRevoke(t.Context(), store.KeyRevokeParams{ID: revokedBefore.ID, At: h.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		revokedAfter, revokedAfterSecret := h.storeKey("revoked after use", stockd.ScopeRead)
		h.expect("GET", "/v1/skus/A", "", http.StatusOK, bearer(revokedAfterSecret))
		h.expect("POST", "/v1/keys/"+revokedAfter.ID+"/revoke", "", http.StatusOK, bearer(adminSecret))
		_, unknownSecret, _, err := stockd.NewAPIKey("never stored", []string{"read"}, h.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		cases := map[string]map[string]string{
			"missing":          nil,
			"empty":            {"Authorization": "Bearer "},
			"other scheme":     {"Authorization": "Basic " + adminSecret},
			"no scheme":        {"Authorization": adminSecret},
			"malformed":        bearer("sk_short"),
			"upper case":       bearer(strings.ToUpper(unknownSecret)),
			"two spaces":       {"Authorization": "Bearer  " + adminSecret},
			"unknown":          bearer(unknownSecret),
			"revoked":          bearer(revokedBeforeSecret),
			"revoked, cached":  bearer(revokedAfterSecret),
			"admin's, mangled": bearer(mangle(adminSecret)),
		}
		var first []byte
		for name, headers := range cases {
			a := h.expect("GET", "/v1/skus/A", "", http.StatusUnauthorized, headers)
			if first == nil {
				first = a.body
			}
			if !bytes.Equal(a.body, first) {
				t.Errorf("%s: body %s, want the same bytes as every 401: %s", name, a.body, first)
			}
			if a.header.Get("WWW-Authenticate") == "" {
				t.Errorf("%s: no WWW-Authenticate", name)
			}
		}
		// Two Authorization headers are one malformed key too.
		req, err := http.NewRequest("GET", h.url+"/v1/skus/A", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Add("Authorization", "Bearer "+adminSecret)
		req.Header.Add("Authorization", "Bearer "+adminSecret)
		resp, err := h.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("two Authorization headers: %d, want 401", resp.StatusCode)
		}
		if got := h.expect("GET", "/v1/skus/A", "", http.StatusOK, bearer(adminSecret)); got.status != http.StatusOK {
			t.Fatalf("admin %s refused", admin.ID)
		}
	})
}

// TestForbiddenIsAudited checks that a key without the route's scope is
// refused with 403, changes nothing, and leaves a row in the audit trail.
func TestForbiddenIsAudited(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		reader, secret := h.storeKey("reader", stockd.ScopeRead)
		a := h.sendHeaders("POST", "/v1/locations", []byte(`{"location":"L9"}`), bearer(secret, headerIdempotencyKey, "loc-1"))
		if p := a.problem(t); a.status != http.StatusForbidden || p.Code != stockd.CodeForbidden {
			t.Fatalf("POST /v1/locations with a read key: %d %s, want 403 forbidden", a.status, p.Code)
		}
		var locations LocationList
		a = h.expect("GET", "/v1/locations", "", http.StatusOK, bearer(secret))
		if err := json.Unmarshal(a.body, &locations); err != nil || len(locations.Locations) != 1 {
			t.Fatalf("locations = %+v, %v; want only default", locations, err)
		}
		events, err := h.store.AuditEventList(t.Context(), store.AuditEventListParams{})
		if err != nil {
			t.Fatal(err)
		}
		want := stockd.AuditEvent{KeyID: reader.ID, Action: "location_create", Resource: "POST /v1/locations",
			Outcome: stockd.AuditOutcomeForbidden, Detail: "missing scope admin"}
		if len(events) != 1 {
			t.Fatalf("audit trail = %+v, want one refusal", events)
		}
		got := events[0]
		got.ID, got.At = 0, time.Time{}
		if got != want {
			t.Fatalf("audit event = %+v, want %+v", got, want)
		}
	})
}

// TestScopesPerRoute sends every scoped route with a key of each scope:
// only the route's own scope gets past authorization, and the document
// names the same scope.
func TestScopesPerRoute(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		secrets := map[stockd.Scope]string{}
		for _, scope := range stockd.AllScopes() {
			_, secrets[scope] = h.storeKey("only "+string(scope), scope)
		}
		c := loadContract(t)
		for _, rt := range h.scopedRoutes() {
			method, path := routePath(rt)
			_, documentedPath, _ := strings.Cut(rt.pattern, " ")
			op, _ := c.lookup("paths", documentedPath, strings.ToLower(method))
			if got := documentedScopes(op); len(got) != 1 || got[0] != string(rt.scope) {
				t.Errorf("%s: openapi.json asks for scopes %v, the server for %s", rt.pattern, got, rt.scope)
			}
			for scope, secret := range secrets {
				a := h.sendHeaders(method, path, nil, bearer(secret, headerIdempotencyKey, "scopes-"+string(scope)))
				refused := a.status == http.StatusUnauthorized || a.status == http.StatusForbidden
				if allowed := scope == rt.scope; allowed == refused {
					t.Errorf("%s with a %s key: %d, want it %s", rt.pattern, scope, a.status, map[bool]string{true: "allowed", false: "refused"}[allowed])
				}
			}
		}
		for _, path := range []string{"/healthz", "/metrics", "/openapi.json"} {
			h.expect("GET", path, "", http.StatusOK, nil)
		}
	})
}

// documentedScopes returns the bearer scopes an operation's security lists.
func documentedScopes(op map[string]any) []string {
	var scopes []string
	requirements, _ := op["security"].([]any)
	for _, r := range requirements {
		m, _ := r.(map[string]any)
		names, _ := m["bearer"].([]any)
		for _, n := range names {
			if s, ok := n.(string); ok {
				scopes = append(scopes, s)
			}
		}
	}
	return scopes
}

// mangle changes one character in the middle of a secret. (Not the last:
// it carries a single bit, so it is "a" or "q", and a fixed replacement
// would change nothing half the time.)
func mangle(secret string) string {
	b := []byte(secret)
	if b[20] == 'a' {
		b[20] = 'b'
	} else {
		b[20] = 'a'
	}
	return string(b)
}
