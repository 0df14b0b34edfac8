package dashboard

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// clock is a time a test moves.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// site is a dashboard on a real store behind a loopback HTTP server, and
// a browser-like client: a cookie jar, redirects not followed.
type site struct {
	t      *testing.T
	store  store.Store
	clock  *clock
	url    string
	client *http.Client
}

func newSite(t *testing.T, b testdb.Backend, requireKeys bool) *site {
	t.Helper()
	st := b.New(t)
	clk := &clock{now: time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)}
	h := New(Config{Store: st, RequireKeys: requireKeys, Now: clk.Now, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &site{t: t, store: st, clock: clk, url: srv.URL, client: client}
}

// get returns the status, the Location header and the body.
func (s *site) get(path string) (int, string, string) {
	s.t.Helper()
	resp, err := s.client.Get(s.url + path)
	if err != nil {
		s.t.Fatal(err)
	}
	return answer(s.t, resp)
}

func (s *site) post(path string, form url.Values, header http.Header) (int, string, string) {
	s.t.Helper()
	req, err := http.NewRequest("POST", s.url+path, strings.NewReader(form.Encode()))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	return answer(s.t, resp)
}

func answer(t *testing.T, resp *http.Response) (int, string, string) {
	t.Helper()
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Location"), string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// token reads the CSRF token of the form on the page at path.
func (s *site) token(path string) string {
	s.t.Helper()
	_, _, body := s.get(path)
	m := csrfField.FindStringSubmatch(body)
	if m == nil {
		s.t.Fatalf("no CSRF token on %s:\n%s", path, body)
	}
	return m[1]
}

func (s *site) cookie() string {
	s.t.Helper()
	u, _ := url.Parse(s.url + basePath + "/")
	for _, c := range s.client.Jar.Cookies(u) {
		if c.Name == cookieName {
			return c.Value
		}
	}
	return ""
}

func (s *site) key(scopes ...string) (stockd.APIKey, string) {
	s.t.Helper()
	key, secret, hash, err := stockd.NewAPIKey("ui-test", scopes, s.clock.Now())
	if err != nil {
		s.t.Fatal(err)
	}
	if err := s.store.KeyCreate(context.Background(), store.KeyCreateParams{Key: key, Hash: hash}); err != nil {
		s.t.Fatal(err)
	}
	return key, secret
}

func (s *site) signin(secret string) (int, string, string) {
	s.t.Helper()
	return s.post("/ui/signin", url.Values{"csrf": {s.token("/ui/signin")}, "key": {secret}}, nil)
}

func TestOpenUntilAKeyExists(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		if status, _, body := s.get("/ui/"); status != http.StatusOK || !strings.Contains(body, "open: no API key exists yet") {
			t.Fatalf("open dashboard: %d\n%s", status, body)
		}
		s.key("read")
		s.clock.advance(keysCheckInterval)
		if status, location, _ := s.get("/ui/"); status != http.StatusSeeOther || location != "/ui/signin" {
			t.Fatalf("once a key exists: %d to %q, want 303 to the sign-in form", status, location)
		}
	})
}

func TestRequireKeysClosesTheDashboard(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, true)
		if status, location, _ := s.get("/ui/sku/x"); status != http.StatusSeeOther || location != "/ui/signin" {
			t.Fatalf("RequireKeys without a key: %d to %q, want 303 to the sign-in form", status, location)
		}
	})
}

func TestSignInRefusesEveryBadKeyAlike(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		_, noRead := s.key("reserve")
		revoked, revokedSecret := s.key("read")
		if _, err := s.store.KeyRevoke(context.Background(), store.KeyRevokeParams{ID: revoked.ID, At: s.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		unknown := stockd.APIKeyPrefix + strings.Repeat("b", 52)
		for name, secret := range map[string]string{"malformed": "sk_nope", "unknown": unknown, "no read scope": noRead, "revoked": revokedSecret} {
			status, _, body := s.signin(secret)
			if status != http.StatusUnauthorized || !strings.Contains(body, signinRefused) {
				t.Errorf("%s key: %d, want 401 with the one refusal\n%s", name, status, body)
			}
			if strings.Contains(body, secret) {
				t.Errorf("%s key: the page shows the key back", name)
			}
		}
	})
}

func TestSessionLifecycle(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		key, secret := s.key("read")
		s.get("/ui/signin")
		before := s.cookie()
		if status, location, _ := s.signin(secret); status != http.StatusSeeOther || location != "/ui/" {
			t.Fatalf("sign-in: %d to %q", status, location)
		}
		after := s.cookie()
		if after == "" || after == before {
			t.Fatal("sign-in kept the visitor's cookie value: a value planted before it would ride the session")
		}
		status, _, body := s.get("/ui/")
		if status != http.StatusOK || !strings.Contains(body, key.ID) || strings.Contains(body, secret) {
			t.Fatalf("signed in: %d, want the overview naming the key, never its secret\n%s", status, body)
		}
		// Revoked elsewhere: the session ends within the recheck interval.
		if _, err := s.store.KeyRevoke(context.Background(), store.KeyRevokeParams{ID: key.ID, At: s.clock.Now()}); err != nil {
			t.Fatal(err)
		}
		s.clock.advance(keyRecheckInterval)
		if status, location, _ := s.get("/ui/"); status != http.StatusSeeOther || location != "/ui/signin" {
			t.Fatalf("revoked key's session: %d to %q, want the sign-in form", status, location)
		}
	})
}

func TestSessionExpiresAndSignOutEndsIt(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		_, secret := s.key("read")
		s.signin(secret)
		session := s.cookie()
		if status, location, _ := s.post("/ui/signout", url.Values{"csrf": {s.token("/ui/")}}, nil); status != http.StatusSeeOther || location != "/ui/signin" {
			t.Fatalf("sign-out: %d to %q", status, location)
		}
		// The old cookie, replayed, is no session.
		u, _ := url.Parse(s.url + basePath + "/")
		s.client.Jar.SetCookies(u, []*http.Cookie{{Name: cookieName, Value: session, Path: basePath}})
		if status, _, _ := s.get("/ui/"); status != http.StatusSeeOther {
			t.Fatalf("a signed-out session's cookie still opens the overview: %d", status)
		}
		s.signin(secret)
		s.clock.advance(sessionTTL)
		if status, _, _ := s.get("/ui/"); status != http.StatusSeeOther {
			t.Fatalf("a session past its TTL still opens the overview: %d", status)
		}
	})
}

func TestFormsNeedTheirCSRFToken(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		_, secret := s.key("read")
		token := s.token("/ui/signin")
		cases := []struct {
			name   string
			form   url.Values
			header http.Header
		}{
			{"no token", url.Values{"key": {secret}}, nil},
			{"another visitor's token", url.Values{"key": {secret}, "csrf": {newSessions().token(s.cookie())}}, nil},
			{"another origin", url.Values{"key": {secret}, "csrf": {token}}, http.Header{"Origin": {"http://evil.example"}}},
			{"cross-site fetch", url.Values{"key": {secret}, "csrf": {token}}, http.Header{"Sec-Fetch-Site": {"cross-site"}}},
		}
		for _, c := range cases {
			if status, _, _ := s.post("/ui/signin", c.form, c.header); status != http.StatusForbidden {
				t.Errorf("%s: sign-in answered %d, want 403", c.name, status)
			}
		}
		if status, _, _ := s.get("/ui/"); status != http.StatusSeeOther {
			t.Fatalf("a refused sign-in signed in: %d", status)
		}
		ok := url.Values{"key": {secret}, "csrf": {token}}
		if status, _, _ := s.post("/ui/signin", ok, http.Header{"Origin": {s.url}, "Sec-Fetch-Site": {"same-origin"}}); status != http.StatusSeeOther {
			t.Fatalf("the page's own form: %d, want 303", status)
		}
	})
}

func TestPagesAnswerBadAddresses(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		for path, want := range map[string]int{
			"/ui/sku/nope":        http.StatusNotFound,
			"/ui/sku/x?after=abc": http.StatusBadRequest,
			"/ui/nowhere":         http.StatusNotFound,
			"/ui/skus?q=" + strings.Repeat("x", stockd.IdentifierLengthMax+1): http.StatusBadRequest,
			"/ui/skus":      http.StatusOK,
			"/ui/campaigns": http.StatusOK,
		} {
			if status, _, body := s.get(path); status != want {
				t.Errorf("GET %s: %d, want %d\n%s", path, status, want, body)
			}
		}
		resp, err := s.client.Get(s.url + "/ui/")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Fatalf("Content-Security-Policy %q", csp)
		}
		for _, c := range resp.Cookies() {
			if c.Name == cookieName && (!c.HttpOnly || c.SameSite != http.SameSiteStrictMode) {
				t.Fatalf("cookie %+v: want HttpOnly and SameSite=Strict", c)
			}
		}
	})
}

func TestSKUSearchPagesThroughOneRun(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		eng := engine.New(engine.Config{Store: s.store})
		t.Cleanup(eng.Close)
		ids := []string{"mug", "tee"}
		for i := range skuPageSize + 1 {
			ids = append(ids, fmt.Sprintf("tee-%03d", i))
		}
		for _, id := range ids {
			res, err := eng.Submit(context.Background(), stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: id}}, IdempotencyKey: "sku-" + id})
			if err != nil || res.Err != nil {
				t.Fatalf("create %s: %v %v", id, err, res.Err)
			}
		}
		_, _, first := s.get("/ui/skus?q=tee")
		if !strings.Contains(first, `href="/ui/sku/tee"`) || !strings.Contains(first, "tee-048") || strings.Contains(first, "tee-049") || strings.Contains(first, "/ui/sku/mug") {
			t.Fatalf("first page of tee: want tee, tee-000 … tee-048 and no mug\n%s", first)
		}
		if !strings.Contains(first, "after=tee-048") {
			t.Fatalf("first page of tee links no next page\n%s", first)
		}
		_, _, next := s.get("/ui/skus?q=tee&after=tee-048")
		if !strings.Contains(next, "tee-049") || !strings.Contains(next, "tee-050") || strings.Contains(next, "after=") {
			t.Fatalf("second page of tee: want tee-049, tee-050 and no further page\n%s", next)
		}
	})
}

func TestSessionTableIsBounded(t *testing.T) {
	s := newSessions()
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	first := newCookieValue()
	s.put(first, session{expires: now.Add(time.Minute)}, now)
	for i := range sessionsMax {
		s.put(newCookieValue(), session{expires: now.Add(sessionTTL + time.Duration(i))}, now)
	}
	if n := len(s.byID); n != sessionsMax {
		t.Fatalf("%d sessions kept, want at most %d", n, sessionsMax)
	}
	if _, ok := s.get(first, now); ok {
		t.Fatal("the session closest to its end was not the one evicted")
	}
}

func TestSignInLookupsAreLimited(t *testing.T) {
	b := newBucket(signinsPerSecond, signinsBurst)
	now := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for i := range signinsBurst {
		if !b.take(now) {
			t.Fatalf("attempt %d of a burst refused", i)
		}
	}
	if b.take(now) {
		t.Fatal("an attempt past the burst was let through")
	}
	if !b.take(now.Add(time.Second / signinsPerSecond)) {
		t.Fatal("the bucket did not refill")
	}
}

func TestCompareReadings(t *testing.T) {
	at := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	bounds := func(counts ...uint64) []bucketCount {
		uppers := []float64{0.001, 0.01, 0.1}
		out := make([]bucketCount, len(counts))
		for i, c := range counts {
			out[i] = bucketCount{upper: uppers[i], count: c}
		}
		return out
	}
	cases := []struct {
		name     string
		old, cur reading
		rate     float64
		p99      float64
		p99Known bool
	}{
		{"100 fast, 1 slow: p99 in the fast bucket",
			reading{at: at}, reading{at: at.Add(10 * time.Second), requests: 101, count: 101, buckets: bounds(100, 100, 101)}, 10.1, 1, true},
		{"the slow tail decides",
			reading{at: at, requests: 10, count: 10, buckets: bounds(10, 10, 10)}, reading{at: at.Add(5 * time.Second), requests: 60, count: 60, buckets: bounds(10, 20, 60)}, 10, 100, true},
		{"no request in between", reading{at: at, requests: 5, count: 5, buckets: bounds(5, 5, 5)}, reading{at: at.Add(time.Minute), requests: 5, count: 5, buckets: bounds(5, 5, 5)}, 0, 0, false},
	}
	for _, c := range cases {
		got := compare(c.old, c.cur)
		if !got.Known || got.PerSecond != c.rate || got.P99Known != c.p99Known || got.P99Millis != c.p99 {
			t.Errorf("%s: %+v, want rate %v p99 %v (%v)", c.name, got, c.rate, c.p99, c.p99Known)
		}
	}
	if got := compare(reading{at: at}, reading{at: at.Add(time.Millisecond)}); got.Known {
		t.Errorf("readings a millisecond apart gave a rate: %+v", got)
	}
}

func TestNumbersAsShown(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1\u202f000", -1234567: "−1\u202f234\u202f567"} {
		if got := num(n); got != want {
			t.Errorf("num(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAcknowledgeNeedsStockAndItsToken(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		ctx := context.Background()
		now := s.clock.Now()
		res, err := s.store.AlertWrite(ctx, store.AlertWriteParams{Save: &stockd.Alert{
			SKU: "mug", Condition: "critical", Level: "critical", Status: stockd.AlertOpen,
			History:  []stockd.AlertStep{{At: now, Event: "opened", Level: "critical"}},
			OpenedAt: now, ChangedAt: now, EvaluatedAt: now,
		}})
		if err != nil {
			t.Fatal(err)
		}
		id := res.Saved.ID
		ack := fmt.Sprintf("/ui/alerts/%d/ack", id)

		_, reader := s.key("read")
		s.signin(reader)
		if _, _, body := s.get("/ui/alerts"); strings.Contains(body, fmt.Sprintf(`id="ack-%d"`, id)) || !strings.Contains(body, "needs the stock scope") {
			t.Fatalf("a read-only key is offered the button\n%s", body)
		}
		if status, _, _ := s.post(ack, url.Values{"csrf": {s.token("/ui/alerts")}}, nil); status != http.StatusForbidden {
			t.Fatalf("acknowledge with a read-only key: %d, want 403", status)
		}

		stocker, secret := s.key("read", "stock")
		s.post("/ui/signout", url.Values{"csrf": {s.token("/ui/")}}, nil)
		s.signin(secret)
		if status, _, _ := s.post(ack, url.Values{}, nil); status != http.StatusForbidden {
			t.Fatalf("acknowledge without the token: %d, want 403", status)
		}
		if a, _ := s.store.AlertGet(ctx, id); a.AckedAt != nil {
			t.Fatal("a refused acknowledgement was recorded")
		}
		if status, _, _ := s.post("/ui/alerts/999999/ack", url.Values{"csrf": {s.token("/ui/alerts")}}, nil); status != http.StatusNotFound {
			t.Fatalf("acknowledge an unknown alert: %d, want 404", status)
		}
		status, location, _ := s.post(ack, url.Values{"csrf": {s.token("/ui/alerts")}}, nil)
		if status != http.StatusSeeOther || location != fmt.Sprintf("/ui/alerts?acked=%d", id) {
			t.Fatalf("acknowledge: %d to %q", status, location)
		}
		a, err := s.store.AlertGet(ctx, id)
		if err != nil || a.AckedBy != stocker.ID || a.AckedAt == nil {
			t.Fatalf("after the click: %+v %v, want acknowledged by %s", a, err, stocker.ID)
		}
		events, err := s.store.AuditEventList(ctx, store.AuditEventListParams{})
		if err != nil {
			t.Fatal(err)
		}
		audited := false
		for _, e := range events {
			audited = audited || e.Action == "alert_ack" && e.KeyID == stocker.ID
		}
		if !audited {
			t.Fatalf("no alert_ack audit event of %s in %+v", stocker.ID, events)
		}
		if _, _, body := s.get(fmt.Sprintf("/ui/alerts?status=all&acked=%d", id)); !strings.Contains(body, "by "+stocker.ID) {
			t.Fatalf("the list does not show who acknowledged\n%s", body)
		}
	})
}

func TestListsRefuseBadFilters(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := newSite(t, b, false)
		for path, want := range map[string]int{
			"/ui/alerts":                       http.StatusOK,
			"/ui/alerts?status=resolved":       http.StatusOK,
			"/ui/alerts?status=maybe":          http.StatusBadRequest,
			"/ui/alerts?after=x":               http.StatusBadRequest,
			"/ui/discrepancies":                http.StatusOK,
			"/ui/discrepancies?status=all":     http.StatusOK,
			"/ui/discrepancies?status=pending": http.StatusBadRequest,
			"/ui/discrepancies?after=-1":       http.StatusBadRequest,
		} {
			if status, _, body := s.get(path); status != want {
				t.Errorf("GET %s: %d, want %d\n%s", path, status, want, body)
			}
		}
	})
}
