package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/gate"
	"github.com/stockd/stockd/internal/testdb"
)

// TestOpenAPIDescribesEveryRoute checks that the mux and the document list
// the same operations, under the same names as the metrics use.
func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	c := loadContract(t)
	s := NewServer(Config{Engine: faultySubmitter{}, Store: faultyStore{}})
	documented := c.operations()
	for _, rt := range s.routes() {
		pattern := documentedRoute(rt.pattern)
		if !documented[pattern] {
			t.Errorf("route %s is not in openapi.json", rt.pattern)
		}
		delete(documented, pattern)
		method, path, _ := strings.Cut(pattern, " ")
		op, _ := c.lookup("paths", path, strings.ToLower(method))
		if op["operationId"] != rt.operation {
			t.Errorf("%s: operationId %v, want the metrics' operation %q", rt.pattern, op["operationId"], rt.operation)
		}
	}
	for op := range documented {
		t.Errorf("openapi.json documents %s, which no route serves", op)
	}
}

// TestOpenAPIServed checks that GET /openapi.json serves the document in
// the repository.
func TestOpenAPIServed(t *testing.T) {
	s := NewServer(Config{Engine: faultySubmitter{}, Store: faultyStore{}})
	req, err := http.NewRequest(http.MethodGet, "/openapi.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), openAPIDocument) {
		t.Fatalf("GET /openapi.json: %d, %d bytes; want 200 and the %d bytes of openapi.json", rec.Code, rec.Body.Len(), len(openAPIDocument))
	}
}

// TestContractCatchesDrift shows that the contract check fails an answer
// the document does not describe, so that its silence elsewhere means
// something.
func TestContractCatchesDrift(t *testing.T) {
	c := loadContract(t)
	jsonHeader := http.Header{"Content-Type": {"application/json"}}
	problemHeader := http.Header{"Content-Type": {"application/problem+json"}}
	for _, ex := range []exchange{
		{pattern: "POST /v1/receipts", status: 200, header: jsonHeader, body: []byte(`{"sku":"A","location":"default","pool":"normal","on_hand":1,"reserved":0,"committed":0,"quarantined":0}`)},
		{pattern: "POST /v1/receipts", status: 200, header: jsonHeader, body: []byte(`{"sku":"A","location":"default","pool":"normal","on_hand":1,"reserved":0,"committed":0,"quarantined":0,"available":1,"extra":1}`)},
		{pattern: "POST /v1/receipts", status: 201, header: jsonHeader, body: []byte(`{}`)},
		{pattern: "POST /v1/receipts", status: 409, header: problemHeader, body: []byte(`{"type":"urn:stockd:problem:stale_quantity","title":"t","status":409,"detail":"d","code":"stale_quantity"}`)},
		{pattern: "POST /v1/reservations", status: 409, header: problemHeader, body: []byte(`{"type":"urn:stockd:problem:insufficient_stock","title":"t","status":409,"detail":"d","code":"insufficient_stock"}`)},
		{pattern: "POST /v1/reservations", status: 404, header: problemHeader, body: []byte(`{"type":"urn:stockd:problem:not_found","title":"t","status":404,"detail":"d","code":"unknown_sku"}`)},
		{pattern: "GET /v1/reservations/{id}", status: 200, header: jsonHeader, body: []byte(`{"id":"r","key":"k","status":"pending","expires_at":"yesterday","created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","lines":[{"sku":"A","quantity":1,"location":"default","pool":"normal"}]}`)},
		{pattern: "GET /v1/skus/{sku}", status: 200, header: problemHeader, body: []byte(`{}`)},
		{pattern: "GET /v1/skus/{sku}", status: 200, header: http.Header{"Content-Type": {"application/json"}, headerReplayed: {"true"}}, body: []byte(`{"sku":"A","name":"","unit":"piece","created_at":"2026-01-01T00:00:00Z"}`)},
	} {
		err := c.check(ex)
		if err == nil {
			t.Errorf("%s %d %s passed the contract check", ex.pattern, ex.status, ex.body)
			continue
		}
		t.Logf("%s %d: %v", ex.pattern, ex.status, err)
	}
}

// TestRequestSchemasRefuseBadBodies checks that the request schemas are as
// strict as the server: every body the server refuses as malformed, out of
// bounds or meaningless, the document refuses too. (The harness checks the
// other way round: every body the server accepts, the document accepts.)
func TestRequestSchemasRefuseBadBodies(t *testing.T) {
	c := loadContract(t)
	s := NewServer(Config{Engine: faultySubmitter{}, Store: faultyStore{}})
	// What a schema of one body cannot see.
	beyondSchema := map[string]bool{
		// Each line is in bounds; only their merge is not.
		"reserve merged quantity above 10^12": true,
		// JSON Schema counts 1e3 an integer; stockd takes integers written
		// in digits only, as the document says in words.
		"receipt quantity exponent": true,
	}
	checked := 0
	for _, bad := range badRequests() {
		switch {
		case bad.wantCode != stockd.CodeInvalidInput && bad.wantCode != stockd.CodeInvalidJSON && bad.wantCode != stockd.CodeUnprocessable:
			continue
		case bad.wantField == headerActor || bad.wantField == "id" || beyondSchema[bad.name]:
			continue
		case bad.key != "" || bad.actor != "":
			continue
		}
		path := strings.NewReplacer("{pending}", "r1", "{released}", "r2").Replace(cmp(bad.path, "/v1/receipts"))
		req, err := http.NewRequest(cmp(bad.method, "POST"), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, pattern := s.mux.Handler(req)
		method, route, _ := strings.Cut(pattern, " ")
		checked++
		if err := c.validateRequest(route, strings.ToLower(method), []byte(bad.body)); err == nil {
			t.Errorf("%s: the document accepts %s, which the server refuses with %s", bad.name, bad.body, bad.wantCode)
		}
	}
	if checked < 50 {
		t.Fatalf("checked only %d bodies", checked)
	}
}

// mutationSweep is a valid request of every mutation, for the checks that
// every mutation shares.
type mutationSweep struct {
	pattern string
	path    string
	body    string
}

// TestOpenAPIResponses drives every operation to every answer the document
// lists for it (successes, every error code, injected failures) and checks
// each answer against the document, then that nothing documented went
// unseen.
func TestOpenAPIResponses(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		var g *gate.Gate
		var gatePrefix string
		h := newHarness(t, b, withGate(t, &g, &gatePrefix))
		h.seed(10, "A")
		var pending, released, committed, toFulfil, expiring Reservation
		reserveOne := `{"lines":[{"sku":"A","quantity":1}]}`
		h.must("POST", "/v1/reservations", "pending", reserveOne, http.StatusCreated, &pending)
		h.must("POST", "/v1/reservations", "released", reserveOne, http.StatusCreated, &released)
		h.must("POST", "/v1/reservations/"+released.ID+"/release", "release-1", `{"reason":"payment_failed"}`, http.StatusOK, &released)
		h.must("POST", "/v1/reservations", "committed", `{"lines":[{"sku":"A","quantity":1}],"commit":true}`, http.StatusCreated, &committed)
		h.must("POST", "/v1/reservations", "to-fulfil", reserveOne, http.StatusCreated, &toFulfil)
		h.must("POST", "/v1/reservations/"+toFulfil.ID+"/confirm", "confirm-1", "", http.StatusOK, nil)
		h.must("POST", "/v1/reservations/"+toFulfil.ID+"/fulfil", "fulfil-1", "{}", http.StatusOK, nil)
		h.must("POST", "/v1/reservations", "expiring", `{"lines":[{"sku":"A","quantity":1}],"ttl_seconds":1}`, http.StatusCreated, &expiring)

		// Successes and replays.
		h.must("POST", "/v1/skus", "seed-sku-A", `{"sku":"A"}`, http.StatusCreated, nil)
		h.must("POST", "/v1/locations", "location-L1", `{"location":"L1","name":"Back room","priority":5}`, http.StatusCreated, nil)
		h.must("POST", "/v1/locations", "location-L1", `{"priority":5,"name":"Back room","location":"L1"}`, http.StatusCreated, nil)
		h.must("POST", "/v1/receipts", "receipt-L1", `{"sku":"A","location":"L1","quantity":4,"reference":"DN-1"}`, http.StatusOK, nil)
		h.must("POST", "/v1/adjustments", "adjust-delta", `{"sku":"A","location":"L1","reason":"damage","delta":-1}`, http.StatusOK, nil)
		h.must("POST", "/v1/adjustments", "adjust-set", `{"sku":"A","location":"L1","reason":"cycle_count","set_on_hand":5,"expected_on_hand":3}`, http.StatusOK, nil)
		h.must("POST", "/v1/reservations/"+pending.ID+"/confirm", "confirm-pending", "", http.StatusOK, nil)
		h.must("POST", "/v1/reservations/"+pending.ID+"/confirm", "confirm-pending-again", "", http.StatusOK, nil)
		h.must("POST", "/v1/reservations/"+released.ID+"/release", "release-again", "", http.StatusOK, nil)
		h.must("POST", "/v1/reservations/"+toFulfil.ID+"/fulfil", "fulfil-again", "", http.StatusOK, nil)
		for _, path := range []string{
			"/v1/skus/A", "/v1/skus", "/v1/skus?after=A&limit=1", "/v1/locations", "/v1/stock/A", "/v1/reservations/" + pending.ID, "/v1/reservations?key=released",
			"/v1/ledger", "/v1/ledger?sku=A&after=2&limit=3", "/v1/events?after=1&limit=1000", "/v1/requests/receipt-L1",
			"/", "/healthz", "/metrics", "/openapi.json",
		} {
			h.must("GET", path, "", "", http.StatusOK, nil)
		}

		// Refusals.
		for i, c := range badRequests() {
			path := strings.NewReplacer("{pending}", toFulfil.ID, "{released}", released.ID).Replace(cmp(c.path, "/v1/receipts"))
			key := c.key
			switch key {
			case "":
				key = "contract-bad-" + strconv.Itoa(i)
			case "-":
				key = ""
			}
			h.sendHeaders(cmp(c.method, "POST"), path, []byte(c.body), map[string]string{headerIdempotencyKey: key, headerActor: c.actor})
		}
		for _, c := range readBadRequests() {
			h.send("GET", c.path, "", nil)
		}
		h.clock.Advance(2 * time.Second)
		h.must("POST", "/v1/reservations/"+expiring.ID+"/confirm", "confirm-expired", "", http.StatusConflict, nil)
		h.must("POST", "/v1/reservations/"+committed.ID+"/release", "release-committed", "", http.StatusConflict, nil)
		h.must("POST", "/v1/reservations/"+released.ID+"/fulfil", "fulfil-released", "", http.StatusConflict, nil)
		h.must("POST", "/v1/reservations/"+released.ID+"/confirm", "confirm-released", "", http.StatusConflict, nil)
		for _, verb := range []string{"confirm", "release", "fulfil"} {
			h.must("POST", "/v1/reservations/unknown/"+verb, verb+"-unknown", "", http.StatusNotFound, nil)
		}
		h.must("DELETE", "/v1/skus", "", "", http.StatusMethodNotAllowed, nil)
		h.must("GET", "/v2/skus", "", "", http.StatusNotFound, nil)

		// What every mutation shares.
		h.must("POST", "/v1/skus", "shared-key", `{"sku":"SHARED"}`, http.StatusCreated, nil)
		for _, m := range []mutationSweep{
			{"POST /v1/skus", "/v1/skus", `{"sku":"B"}`},
			{"POST /v1/locations", "/v1/locations", `{"location":"L2"}`},
			{"POST /v1/receipts", "/v1/receipts", `{"sku":"A","quantity":1}`},
			{"POST /v1/adjustments", "/v1/adjustments", `{"sku":"A","reason":"found","delta":1}`},
			{"POST /v1/reservations", "/v1/reservations", reserveOne},
			{"POST /v1/reservations/{id}/confirm", "/v1/reservations/" + pending.ID + "/confirm", ""},
			{"POST /v1/reservations/{id}/release", "/v1/reservations/" + pending.ID + "/release", `{"reason":"other"}`},
			{"POST /v1/reservations/{id}/fulfil", "/v1/reservations/" + pending.ID + "/fulfil", "{}"},
			{"POST /v1/reservations/{id}/extend", "/v1/reservations/" + pending.ID + "/extend", `{"ttl_seconds":60}`},
		} {
			for _, fault := range []string{faultInternal, faultCancelled, faultOverloaded, faultTimeout, faultDown, faultHalted} {
				a := h.sendHeaders("POST", m.path, []byte(m.body), map[string]string{headerIdempotencyKey: "fault-" + fault, headerTestFault: fault})
				if fault == faultOverloaded && a.header.Get("Retry-After") != "1" {
					t.Errorf("%s overloaded: Retry-After %q, want 1", m.pattern, a.header.Get("Retry-After"))
				}
			}
			h.must("POST", m.path, "shared-key", m.body, http.StatusUnprocessableEntity, nil)
			h.must("POST", m.path, "", m.body, http.StatusBadRequest, nil)
			h.must("POST", m.path, "too-large", `{"reference":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
		}
		for _, path := range []string{
			"/v1/skus/A", "/v1/skus", "/v1/locations", "/v1/stock/A", "/v1/reservations/" + pending.ID, "/v1/reservations?key=pending",
			"/v1/ledger?sku=A", "/v1/events", "/v1/requests/receipt-L1", "/healthz",
			"/v1/discrepancies", "/v1/discrepancies/1", "/v1/locations/L1",
		} {
			for _, fault := range []string{faultInternal, faultCancelled, faultTimeout, faultDown} {
				h.sendHeaders("GET", path, nil, map[string]string{headerTestFault: fault})
			}
		}

		exerciseForms(h)
		exercisePreconditions(h)
		exercisePartialFulfil(h)
		exerciseDiscrepancies(h)
		exerciseCounts(h)
		exerciseImports(h)

		// The scenarios of scenario_test.go.
		exercisePools(h)
		exerciseFlow(h)
		exerciseOrders(h)
		exerciseBusinessNumbers(h)
		exerciseLedgerFilters(h)
		exerciseReservationList(h)
		exerciseListings(h)
		exerciseStockList(h)
		if g != nil {
			exerciseGate(h, g, gatePrefix)
		}
		h.seed(10, "EXT")
		exerciseExtend(h) // moves the clock a week: after the others
		exerciseAlerts(h)
		exerciseReplenishment(h)
		exerciseWebhooks(h)
		exerciseAnswerPruning(h) // prunes every answer so far: after the exercises that replay
		exerciseExceptions(h)

		// Access control: keys close the open server, so this comes last.
		exerciseKeys(h)
		exchanges := append(h.recorded(), exerciseRateLimits(t, b)...)
		exchanges = append(exchanges, exerciseArchived(t, b)...)
		requireCoverage(t, loadContract(t), append(exchanges, exerciseNoGate(t, b)...), g == nil)
		if *updateExamples && b.Name == "sqlite" {
			recordExamples(t, loadContract(t), h.recorded())
		}
	})
}

// cmp returns s, or fallback when s is empty.
func cmp(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// requireCoverage fails for every documented answer (operation and status)
// and every error code that no exchange showed.
// Without a gate (no STOCKD_TEST_REDIS_URL), the gate's own answers are
// left out.
func requireCoverage(t *testing.T, c *contract, exchanges []exchange, gateless bool) {
	t.Helper()
	seen := map[string]bool{}
	codes := map[string]bool{}
	for _, ex := range exchanges {
		seen[ex.pattern+" "+strconv.Itoa(ex.status)] = true
		if ex.header.Get("Content-Type") == "application/problem+json" {
			codes[(answer{status: ex.status, body: ex.body}).problem(t).Code] = true
		}
	}
	paths, _ := c.lookup("paths")
	var missing []string
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			responses := op.(map[string]any)["responses"].(map[string]any)
			for status := range responses {
				key := strings.ToUpper(method) + " " + path + " " + status
				if !seen[key] {
					missing = append(missing, key)
				}
			}
		}
	}
	enum, _ := c.lookup("components", "schemas", "ErrorCode")
	for _, code := range enum["enum"].([]any) {
		if !codes[code.(string)] {
			missing = append(missing, fmt.Sprintf("error code %s", code))
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		if gateless && gateOnly(m) {
			continue
		}
		t.Errorf("never answered: %s", m)
	}
}

func newRecorder() *httptest.ResponseRecorder { return httptest.NewRecorder() }
