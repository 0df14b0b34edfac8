package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// submitFunc is a Submitter made of a function, for tests that need no
// database.
type submitFunc func(ctx context.Context, cmd stockd.Command) (stockd.Result, error)

func (f submitFunc) Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	return f(ctx, cmd)
}

// capture records the commands it is given and answers a fixed result.
type capture struct {
	mu     sync.Mutex
	cmds   []stockd.Command
	result stockd.Result
}

func (c *capture) Submit(_ context.Context, cmd stockd.Command) (stockd.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.cmds = append(c.cmds, cmd)
	return c.result, nil
}

func serve(s *Server, method, path, key, body string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if key != "" {
		req.Header.Set(headerIdempotencyKey, key)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	return rec
}

// TestEveryCodeHasOneStatus checks the table from code to status against
// the issue, code by code.
func TestEveryCodeHasOneStatus(t *testing.T) {
	want := map[string]int{
		stockd.CodeInvalidInput: 400, stockd.CodeInvalidJSON: 400, stockd.CodeIdempotencyKeyMissing: 400, stockd.CodeIdempotencyKeyInvalid: 400,
		stockd.CodeUnprocessable: 422, stockd.CodeIdempotencyKeyReused: 422,
		stockd.CodeUnknownSKU: 404, stockd.CodeUnknownLocation: 404, stockd.CodeUnknownPool: 404, stockd.CodeNotFound: 404,
		CodeMethodNotAllowed:     405,
		stockd.CodeAlreadyExists: 409, stockd.CodeInsufficientStock: 409, stockd.CodeStaleQuantity: 409,
		stockd.CodeInvalidTransition: 409, stockd.CodeReservationExpired: 409,
		stockd.CodeBodyTooLarge: 413, stockd.CodeUnsupportedMediaType: 415, stockd.CodeOverloaded: 429, stockd.CodeCancelled: 503, stockd.CodeInternal: 500,
		stockd.CodeUnauthorized: 401, stockd.CodeForbidden: 403, stockd.CodeRateLimited: 429,
		stockd.CodePurchaseLimitExceeded: 409, stockd.CodeCampaignNotActive: 409, stockd.CodeLocationInactive: 409,
		stockd.CodeDeductionTiming: 409, stockd.CodeSelfApproval: 403, stockd.CodeQuantityExceeded: 409,
		stockd.CodeTimeout: 503, stockd.CodeDatabaseUnavailable: 503, stockd.CodeHalted: 503,
		stockd.CodeUnknownDiscrepancy: 404, stockd.CodeDiscrepancyClosed: 409,
		stockd.CodeDuplicateOrder: 409, stockd.CodeDuplicateReference: 409,
		stockd.CodeGateUnavailable: 503, stockd.CodeGateClosed: 409, stockd.CodeNotPersisted: 503,
		stockd.CodeInvalidCSV: 400, stockd.CodeImportIncomplete: 409,
		stockd.CodeAsOfArchived:       400,
		stockd.CodeAnswerPruned:       422,
		stockd.CodePreconditionFailed: 412,
	}
	for code, status := range want {
		if got := statusOf(code); got != status {
			t.Errorf("statusOf(%s) = %d, want %d", code, got, status)
		}
	}
	if len(codeInfo) != len(want) {
		t.Errorf("the table has %d codes, the test knows %d", len(codeInfo), len(want))
	}
	if p := problemOf(&stockd.Error{Code: "no_such_code", Message: "secret"}); p.Status != 500 || p.Code != stockd.CodeInternal || strings.Contains(p.Detail, "secret") {
		t.Errorf("an unknown code became %+v, want internal", p)
	}
}

// TestFailuresNeverLeak checks that an engine failure answers the code
// that says what happened (503 with Retry-After for what a retry can
// outlast, 500 with an incident id for a bug), with nothing of the real
// error.
func TestFailuresNeverLeak(t *testing.T) {
	leaky := errors.New("dial tcp 10.0.0.7:5432: password authentication failed for user stockd")
	for _, c := range []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
	}{
		{"bug", leaky, 500, stockd.CodeInternal},
		{"incident", &stockd.Incident{ID: "0b5e", Err: leaky}, 500, stockd.CodeInternal},
		{"database down", fmt.Errorf("begin: %w: %w", store.ErrUnavailable, leaky), 503, stockd.CodeDatabaseUnavailable},
		{"deadline", fmt.Errorf("lock positions: %w", context.DeadlineExceeded), 503, stockd.CodeTimeout},
		{"wrapped cancel", errors.Join(errors.New("commit"), context.Canceled), 503, stockd.CodeCancelled},
		{"halted", stockd.ErrHalted, 503, stockd.CodeHalted},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := NewServer(Config{
				Engine: submitFunc(func(context.Context, stockd.Command) (stockd.Result, error) { return stockd.Result{}, c.err }),
				Store:  faultyStore{}, Logger: discard(),
			})
			rec := serve(s, "POST", "/v1/receipts", "k", `{"sku":"A","quantity":1}`)
			if rec.Code != c.wantStatus || !strings.Contains(rec.Body.String(), `"code":"`+c.wantCode+`"`) {
				t.Fatalf("%d %s, want %d %s", rec.Code, rec.Body, c.wantStatus, c.wantCode)
			}
			if strings.Contains(rec.Body.String(), "password") || strings.Contains(rec.Body.String(), "10.0.0.7") {
				t.Fatalf("the answer leaks the error: %s", rec.Body)
			}
			if c.wantStatus == 503 && rec.Header().Get("Retry-After") == "" {
				t.Errorf("503 %s without Retry-After", c.wantCode)
			}
			if c.name == "incident" && !strings.Contains(rec.Body.String(), `"instance":"urn:uuid:0b5e"`) {
				t.Errorf("incident answered %s, want its id as the instance", rec.Body)
			}
		})
	}
}

// TestPanicIsInternal checks that a bug in a handler answers 500 instead
// of dropping the connection, which a client would retry into the bug.
func TestPanicIsInternal(t *testing.T) {
	s := NewServer(Config{
		Engine: submitFunc(func(context.Context, stockd.Command) (stockd.Result, error) { return stockd.Result{}, nil }),
		Store:  faultyStore{}, Logger: discard(),
	})
	// A success without its payload: rendering it dereferences nil.
	rec := serve(s, "POST", "/v1/receipts", "k", `{"sku":"A","quantity":1}`)
	if rec.Code != 500 || !strings.Contains(rec.Body.String(), `"code":"internal"`) {
		t.Fatalf("%d %s, want 500 internal", rec.Code, rec.Body)
	}
}

// TestCommandFromRequest checks what reaches the engine: the key, the
// actor, the fingerprint, the defaults left to the domain, and the TTL.
func TestCommandFromRequest(t *testing.T) {
	engine := &capture{result: stockd.Result{Reservation: &stockd.Reservation{ID: "r1"}, Created: true}}
	s := NewServer(Config{Engine: engine, Store: faultyStore{}})
	serve(s, "POST", "/v1/reservations", "k1", `{"lines":[{"sku":"A","quantity":2,"pool":"vip"}],"ttl_seconds":30,"commit":true}`, headerActor, "alice")
	serve(s, "POST", "/v1/reservations", "k2", `{"lines":[{"sku":"A","quantity":2}]}`)
	serve(s, "POST", "/v1/reservations/r1/release", "k3", ``)
	serve(s, "POST", "/v1/reservations/r1/release", "k4", `{"reason":"risk_rejected"}`)
	if len(engine.cmds) != 4 {
		t.Fatalf("%d commands, want 4", len(engine.cmds))
	}
	first, second := engine.cmds[0], engine.cmds[1]
	if first.IdempotencyKey != "k1" || first.Actor != "alice" || first.Op.(*stockd.Reserve).TTL != 30*time.Second || !first.Op.(*stockd.Reserve).Commit {
		t.Errorf("first command %+v %+v", first, first.Op)
	}
	if l := first.Op.(*stockd.Reserve).Lines[0]; l != (stockd.LineRequest{SKU: "A", Quantity: 2, Pool: "vip"}) {
		t.Errorf("line %+v: the location must stay empty for placement", l)
	}
	if second.Op.(*stockd.Reserve).TTL != 0 || second.Actor != "" {
		t.Errorf("absent ttl_seconds became %s, actor %q; want 0 (the domain's default) and none", second.Op.(*stockd.Reserve).TTL, second.Actor)
	}
	if len(first.RequestHash) != 64 || first.RequestHash == second.RequestHash {
		t.Errorf("request hashes %q and %q", first.RequestHash, second.RequestHash)
	}
	if tr := engine.cmds[2].Op.(*stockd.Transition); tr.Action != stockd.KindRelease || tr.ReservationID != "r1" || tr.Reason != "" {
		t.Errorf("release without a body: %+v %+v", engine.cmds[2], tr)
	}
	if tr := engine.cmds[3].Op.(*stockd.Transition); tr.Reason != stockd.ReleaseRiskRejected {
		t.Errorf("release reason %q", tr.Reason)
	}
}

// TestRequestHash checks that the fingerprint ignores spelling (whitespace,
// field order, an empty body against {}) and sees meaning (method, path,
// values).
func TestRequestHash(t *testing.T) {
	engine := &capture{result: stockd.Result{Reservation: &stockd.Reservation{ID: "r1"}, Position: &stockd.Position{}}}
	s := NewServer(Config{Engine: engine, Store: faultyStore{}})
	hash := func(path, body string) string {
		t.Helper()
		engine.cmds = nil
		if rec := serve(s, "POST", path, "k", body); rec.Code >= 300 {
			t.Fatalf("POST %s %s: %d %s", path, body, rec.Code, rec.Body)
		}
		return engine.cmds[0].RequestHash
	}
	same := [][2]string{
		{`{"sku":"A","quantity":1}`, "{\n  \"quantity\" : 1 ,\"sku\":\"A\"}"},
		{`{"sku":"A","quantity":1}`, `{"sku":"A","quantity":1,"location":""}`},
	}
	for _, p := range same {
		if hash("/v1/receipts", p[0]) != hash("/v1/receipts", p[1]) {
			t.Errorf("%s and %s hash differently", p[0], p[1])
		}
	}
	if hash("/v1/reservations/r1/confirm", "") != hash("/v1/reservations/r1/confirm", "{}") {
		t.Error("an empty body and {} hash differently")
	}
	if hash("/v1/reservations/r1/confirm", "") == hash("/v1/reservations/r2/confirm", "") {
		t.Error("confirming two reservations hash the same")
	}
	if hash("/v1/receipts", `{"sku":"A","quantity":1}`) == hash("/v1/receipts", `{"sku":"A","quantity":2}`) {
		t.Error("two quantities hash the same")
	}
}

// TestMetricsCountOutcomes checks the request metrics' labels: fixed
// operation names and the outcome code.
func TestMetricsCountOutcomes(t *testing.T) {
	registry := prometheus.NewRegistry()
	engine := &capture{result: stockd.Result{Err: stockd.Errorf(stockd.CodeUnknownSKU, "sku %q is unknown", "A")}}
	s := NewServer(Config{Engine: engine, Store: faultyStore{}, Registerer: registry})
	serve(s, "POST", "/v1/receipts", "k", `{"sku":"A"}`) // refused before the engine
	serve(s, "POST", "/v1/receipts", "k", `{"sku":"A","quantity":1}`)
	serve(s, "POST", "/v1/receipts", "", `{"sku":"A","quantity":1}`)
	serve(s, "GET", "/v1/skus/a%20b", "", ``)
	serve(s, "GET", "/nowhere/at/all", "", ``)
	serve(s, "GET", "/openapi.json", "", ``)
	for _, c := range []struct {
		operation, code string
	}{
		{"receipt_create", stockd.CodeInvalidInput},
		{"receipt_create", stockd.CodeUnknownSKU},
		{"receipt_create", stockd.CodeIdempotencyKeyMissing},
		{"sku_get", stockd.CodeInvalidInput},
		{operationUnmatched, stockd.CodeNotFound},
		{"openapi", "ok"},
	} {
		if got := sample(t, registry, "stockd_http_requests_total", c.operation, c.code); got != 1 {
			t.Errorf("stockd_http_requests_total{operation=%q,code=%q} = %v, want 1", c.operation, c.code, got)
		}
	}
	if n := seriesCount(t, registry, "stockd_http_request_duration_seconds"); n != 4 {
		t.Errorf("%d duration series, want 4 (receipt_create, sku_get, unmatched, openapi)", n)
	}
	// A second server on the same registry shares the metrics rather than
	// panicking.
	NewServer(Config{Engine: engine, Store: faultyStore{}, Registerer: registry})
	rec := serve(s, "GET", "/metrics", "", ``)
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `stockd_http_requests_total{code="unknown_sku",operation="receipt_create"} 1`) {
		t.Fatalf("GET /metrics: %d\n%s", rec.Code, rec.Body)
	}
}

// TestHealth checks that /healthz reports the store.
func TestHealth(t *testing.T) {
	s := NewServer(Config{Engine: &capture{}, Store: faultyStore{}, Logger: discard()})
	req := httptest.NewRequest("GET", "/healthz", nil)
	req = req.WithContext(context.WithValue(req.Context(), faultContextKey{}, faultInternal))
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), `"unavailable"`) {
		t.Fatalf("healthz with the store down: %d %s", rec.Code, rec.Body)
	}
}

// sample returns the counter's value for an operation and a code.
func sample(t *testing.T, g prometheus.Gatherer, name, operation, code string) float64 {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["operation"] == operation && labels["code"] == code {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// seriesCount returns how many series a metric has.
func seriesCount(t *testing.T, g prometheus.Gatherer, name string) int {
	t.Helper()
	families, err := g.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() == name {
			return len(f.GetMetric())
		}
	}
	return 0
}
