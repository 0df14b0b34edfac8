package httpapi

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// badRequest is one request that must be refused and write nothing.
type badRequest struct {
	name   string
	method string
	// path and body: "{pending}" and "{released}" stand for reservation ids
	path string
	// key is the Idempotency-Key; "-" sends none.
	key       string
	body      string
	actor     string
	wantCode  string
	wantField string
}

func lines(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = `{"sku":"A","quantity":1}`
	}
	return `{"lines":[` + strings.Join(parts, ",") + `]}`
}

func badRequests() []badRequest {
	long := strings.Repeat("x", stockd.IdentifierLengthMax+1)
	receipt := func(field string) string { return `{"sku":"A",` + field + `}` }
	reserve := func(line string) string { return `{"lines":[` + line + `]}` }
	out := []badRequest{
		// Quantities.
		{name: "receipt quantity 0", body: receipt(`"quantity":0`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "receipt quantity negative", body: receipt(`"quantity":-1`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "receipt quantity fractional", body: receipt(`"quantity":1.5`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "receipt quantity string", body: receipt(`"quantity":"5"`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "receipt quantity above 10^12", body: receipt(`"quantity":1000000000001`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "receipt quantity beyond int64", body: receipt(`"quantity":100000000000000000000`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "receipt quantity exponent", body: receipt(`"quantity":1e3`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "receipt quantity missing", body: `{"sku":"A"}`, wantCode: "invalid_input", wantField: "quantity"},
		{name: "receipt quantity null", body: receipt(`"quantity":null`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "reserve quantity 0", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":0}`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "reserve quantity negative", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":-3}`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "reserve quantity fractional", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":0.5}`), wantCode: "invalid_input", wantField: "lines.quantity"},
		{name: "reserve quantity string", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":"1"}`), wantCode: "invalid_input", wantField: "lines.quantity"},
		{name: "reserve quantity above 10^12", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":1000000000001}`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "reserve quantity missing", path: "/v1/reservations", body: reserve(`{"sku":"A"}`), wantCode: "invalid_input", wantField: "lines.quantity"},
		{name: "reserve merged quantity above 10^12", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":600000000000},{"sku":"A","quantity":600000000000}`), wantCode: "invalid_input", wantField: "quantity"},
		{name: "adjustment delta 0", path: "/v1/adjustments", body: `{"sku":"A","reason":"loss","delta":0}`, wantCode: "invalid_input", wantField: "delta"},
		{name: "adjustment delta fractional", path: "/v1/adjustments", body: `{"sku":"A","reason":"loss","delta":-0.5}`, wantCode: "invalid_input", wantField: "delta"},
		{name: "adjustment set_on_hand negative", path: "/v1/adjustments", body: `{"sku":"A","reason":"cycle_count","set_on_hand":-1,"expected_on_hand":10}`, wantCode: "invalid_input", wantField: "set_on_hand"},
		{name: "location priority fractional", path: "/v1/locations", body: `{"location":"L1","priority":1.5}`, wantCode: "invalid_input", wantField: "priority"},
		{name: "location priority negative", path: "/v1/locations", body: `{"location":"L1","priority":-1}`, wantCode: "invalid_input", wantField: "priority"},

		// JSON.
		{name: "unknown field", body: receipt(`"quantity":1,"qty":1`), wantCode: "invalid_json"},
		{name: "field name in another case", body: `{"SKU":"A","quantity":1}`, wantCode: "invalid_json"},
		{name: "field name folded", body: `{"sku":"A","Quantity":1}`, wantCode: "invalid_json"},
		{name: "field name folded in a line", path: "/v1/reservations", body: reserve(`{"sku":"A","QUANTITY":1}`), wantCode: "invalid_json"},
		{name: "null body where one is needed", path: "/v1/receipts", body: `null`, wantCode: "invalid_json"},
		{name: "unknown field in a line", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":1,"warehouse":"x"}`), wantCode: "invalid_json"},
		{name: "malformed JSON", body: `{"sku":"A","quantity":`, wantCode: "invalid_json"},
		{name: "not JSON", body: `sku=A&quantity=1`, wantCode: "invalid_json"},
		{name: "trailing data", body: receipt(`"quantity":1`) + ` x`, wantCode: "invalid_json"},
		{name: "two objects", body: receipt(`"quantity":1`) + receipt(`"quantity":1`), wantCode: "invalid_json"},
		{name: "array body", body: `[{"sku":"A","quantity":1}]`, wantCode: "invalid_json"},
		{name: "empty body", body: ``, wantCode: "invalid_json"},
		{name: "confirm with a field", path: "/v1/reservations/{pending}/confirm", body: `{"force":true}`, wantCode: "invalid_json"},
		{name: "commit as a string", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1}],"commit":"yes"}`, wantCode: "invalid_input", wantField: "commit"},

		// Lines and TTL.
		{name: "no lines", path: "/v1/reservations", body: `{"lines":[]}`, wantCode: "invalid_input", wantField: "lines"},
		{name: "lines missing", path: "/v1/reservations", body: `{}`, wantCode: "invalid_input", wantField: "lines"},
		{name: "101 lines", path: "/v1/reservations", body: lines(101), wantCode: "invalid_input", wantField: "lines"},
		{name: "ttl 0", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1}],"ttl_seconds":0}`, wantCode: "invalid_input", wantField: "ttl_seconds"},
		{name: "ttl -1", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1}],"ttl_seconds":-1}`, wantCode: "invalid_input", wantField: "ttl_seconds"},
		{name: "ttl 86401", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1}],"ttl_seconds":86401}`, wantCode: "invalid_input", wantField: "ttl_seconds"},
		{name: "ttl fractional", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1}],"ttl_seconds":1.5}`, wantCode: "invalid_input", wantField: "ttl_seconds"},

		// Business numbers.
		{name: "order_id too long", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1}],"order_id":"` + strings.Repeat("o", stockd.OrderIDLengthMax+1) + `"}`, wantCode: "invalid_input", wantField: "order_id"},
		{name: "order_id a number", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1}],"order_id":1001}`, wantCode: "invalid_input", wantField: "order_id"},

		// Identifiers.
		{name: "receipt sku characters", body: `{"sku":"A B","quantity":1}`, wantCode: "invalid_input", wantField: "sku"},
		{name: "receipt sku length 65", body: `{"sku":"` + long + `","quantity":1}`, wantCode: "invalid_input", wantField: "sku"},
		{name: "receipt sku empty", body: `{"sku":"","quantity":1}`, wantCode: "invalid_input", wantField: "sku"},
		{name: "receipt location characters", body: `{"sku":"A","location":"x/y","quantity":1}`, wantCode: "invalid_input", wantField: "location"},
		{name: "receipt location length 65", body: `{"sku":"A","location":"` + long + `","quantity":1}`, wantCode: "invalid_input", wantField: "location"},
		{name: "receipt pool characters", body: `{"sku":"A","pool":"p*","quantity":1}`, wantCode: "invalid_input", wantField: "pool"},
		{name: "receipt pool length 65", body: `{"sku":"A","pool":"` + long + `","quantity":1}`, wantCode: "invalid_input", wantField: "pool"},
		{name: "reserve sku characters", path: "/v1/reservations", body: reserve(`{"sku":"é","quantity":1}`), wantCode: "invalid_input", wantField: "sku"},
		{name: "reserve location length 65", path: "/v1/reservations", body: reserve(`{"sku":"A","location":"` + long + `","quantity":1}`), wantCode: "invalid_input", wantField: "location"},
		{name: "reserve pool characters", path: "/v1/reservations", body: reserve(`{"sku":"A","pool":"a b","quantity":1}`), wantCode: "invalid_input", wantField: "pool"},
		{name: "create sku characters", path: "/v1/skus", body: `{"sku":"a;b"}`, wantCode: "invalid_input", wantField: "sku"},
		{name: "create sku length 65", path: "/v1/skus", body: `{"sku":"` + long + `"}`, wantCode: "invalid_input", wantField: "sku"},
		{name: "create sku name too long", path: "/v1/skus", body: `{"sku":"N","name":"` + strings.Repeat("n", stockd.NameLengthMax+1) + `"}`, wantCode: "invalid_input", wantField: "name"},
		{name: "create location characters", path: "/v1/locations", body: `{"location":"a%b"}`, wantCode: "invalid_input", wantField: "location"},
		{name: "reference too long", body: `{"sku":"A","quantity":1,"reference":"` + strings.Repeat("r", stockd.ReferenceLengthMax+1) + `"}`, wantCode: "invalid_input", wantField: "reference"},
		{name: "reservation id characters", path: "/v1/reservations/a%20b/confirm", body: `{}`, wantCode: "invalid_input", wantField: "id"},
		{name: "reservation id length 65", path: "/v1/reservations/" + long + "/release", body: ``, wantCode: "invalid_input", wantField: "id"},
		{name: "fulfil lines empty", path: "/v1/reservations/{pending}/fulfil", body: `{"lines":[]}`, wantCode: "invalid_input", wantField: "lines"},
		{name: "fulfil line quantity 0", path: "/v1/reservations/{pending}/fulfil", body: `{"lines":[{"sku":"A","quantity":0}]}`, wantCode: "invalid_input", wantField: "quantity"},
		{name: "fulfil line sku characters", path: "/v1/reservations/{pending}/fulfil", body: `{"lines":[{"sku":"a b","quantity":1}]}`, wantCode: "invalid_input", wantField: "sku"},
		{name: "release reason unknown", path: "/v1/reservations/{pending}/release", body: `{"reason":"bored"}`, wantCode: "invalid_input", wantField: "reason"},
		{name: "adjustment reason unknown", path: "/v1/adjustments", body: `{"sku":"A","reason":"theft","delta":-1}`, wantCode: "invalid_input", wantField: "reason"},
		{name: "adjustment counter unknown", path: "/v1/adjustments", body: `{"sku":"A","reason":"correction","counter":"sold","delta":-1,"discrepancy_id":1,"basis":"b"}`, wantCode: "invalid_input", wantField: "counter"},
		{name: "correction basis too long", path: "/v1/adjustments", body: `{"sku":"A","reason":"correction","counter":"reserved","delta":-1,"discrepancy_id":1,"basis":"` + strings.Repeat("b", stockd.BasisLengthMax+1) + `"}`, wantCode: "invalid_input", wantField: "basis"},
		{name: "correction without delta", path: "/v1/adjustments", body: `{"sku":"A","reason":"correction","counter":"reserved","discrepancy_id":1,"basis":"b"}`, wantCode: "invalid_input", wantField: "delta"},

		// Headers.
		{name: "key missing", key: "-", body: receipt(`"quantity":1`), wantCode: "idempotency_key_missing"},
		{name: "key 129 characters", key: strings.Repeat("k", stockd.IdempotencyKeyLengthMax+1), body: receipt(`"quantity":1`), wantCode: "idempotency_key_invalid"},
		{name: "key with a tab", key: "key\twith-tab", body: receipt(`"quantity":1`), wantCode: "idempotency_key_invalid"},
		{name: "key not ASCII", key: "clé", body: receipt(`"quantity":1`), wantCode: "idempotency_key_invalid"},
		{name: "key missing on confirm", key: "-", path: "/v1/reservations/{pending}/confirm", wantCode: "idempotency_key_missing"},
		{name: "actor too long", actor: strings.Repeat("a", 65), body: receipt(`"quantity":1`), wantCode: "invalid_input", wantField: "X-Actor"},
		{name: "actor not ASCII", actor: "zoë", body: receipt(`"quantity":1`), wantCode: "invalid_input", wantField: "X-Actor"},

		// Size.
		{name: "body over 64 KiB", body: `{"sku":"A","quantity":1,"reference":"` + strings.Repeat("r", stockd.BodySizeMax) + `"}`, wantCode: "body_too_large"},
		{name: "whitespace over 64 KiB", body: receipt(`"quantity":1`) + strings.Repeat(" ", stockd.BodySizeMax), wantCode: "body_too_large"},
		{name: "malformed and over 64 KiB", body: `{{` + strings.Repeat("x", stockd.BodySizeMax), wantCode: "body_too_large"},

		// Well-formed but meaningless.
		{name: "adjustment delta and set_on_hand", path: "/v1/adjustments", body: `{"sku":"A","reason":"cycle_count","delta":1,"set_on_hand":5,"expected_on_hand":10}`, wantCode: "unprocessable"},
		{name: "adjustment set_on_hand without expected", path: "/v1/adjustments", body: `{"sku":"A","reason":"cycle_count","set_on_hand":5}`, wantCode: "unprocessable"},
		{name: "adjustment expected without set_on_hand", path: "/v1/adjustments", body: `{"sku":"A","reason":"cycle_count","expected_on_hand":10}`, wantCode: "unprocessable"},
		{name: "adjustment neither", path: "/v1/adjustments", body: `{"sku":"A","reason":"cycle_count"}`, wantCode: "unprocessable"},

		// Unknown things.
		{name: "receipt unknown sku", body: `{"sku":"NOPE","quantity":1}`, wantCode: "unknown_sku"},
		{name: "receipt unknown location", body: `{"sku":"A","location":"nowhere","quantity":1}`, wantCode: "unknown_location"},
		{name: "receipt unknown pool", body: `{"sku":"A","pool":"never-created","quantity":1}`, wantCode: "unknown_pool"},
		{name: "adjust unknown pool", path: "/v1/adjustments", body: `{"sku":"A","pool":"never-created","reason":"found","delta":1}`, wantCode: "unknown_pool"},
		{name: "reserve unknown sku", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":1},{"sku":"NOPE","quantity":1}`), wantCode: "unknown_sku"},
		{name: "reserve unknown location", path: "/v1/reservations", body: reserve(`{"sku":"A","location":"nowhere","quantity":1}`), wantCode: "unknown_location"},
		{name: "adjust unknown sku", path: "/v1/adjustments", body: `{"sku":"NOPE","reason":"found","delta":1}`, wantCode: "unknown_sku"},
		{name: "confirm unknown reservation", path: "/v1/reservations/r-unknown/confirm", wantCode: "not_found"},

		// Refusals of the books.
		{name: "reserve more than available", path: "/v1/reservations", body: reserve(`{"sku":"A","quantity":10}`), wantCode: "insufficient_stock"},
		{name: "adjust below reserved", path: "/v1/adjustments", body: `{"sku":"A","reason":"loss","delta":-10}`, wantCode: "insufficient_stock"},
		{name: "stale cycle count", path: "/v1/adjustments", body: `{"sku":"A","reason":"cycle_count","set_on_hand":3,"expected_on_hand":7}`, wantCode: "stale_quantity"},
		{name: "confirm after release", path: "/v1/reservations/{released}/confirm", wantCode: "invalid_transition"},
		{name: "fulfil a pending reservation", path: "/v1/reservations/{pending}/fulfil", body: `{}`, wantCode: "invalid_transition"},
		{name: "sku exists", path: "/v1/skus", body: `{"sku":"A"}`, wantCode: "already_exists"},
		{name: "location exists", path: "/v1/locations", body: `{"location":"default"}`, wantCode: "already_exists"},
		// API keys.
		{name: "key name missing", path: "/v1/keys", body: `{"scopes":["read"]}`, wantCode: "invalid_input", wantField: "name"},
		{name: "key name too long", path: "/v1/keys", body: `{"name":"` + strings.Repeat("n", stockd.APIKeyNameLengthMax+1) + `","scopes":["read"]}`, wantCode: "invalid_input", wantField: "name"},
		{name: "key name control character", path: "/v1/keys", body: `{"name":"a\u0007b","scopes":["read"]}`, wantCode: "invalid_input", wantField: "name"},
		{name: "key scopes missing", path: "/v1/keys", body: `{"name":"orders"}`, wantCode: "invalid_input", wantField: "scopes"},
		{name: "key scopes empty", path: "/v1/keys", body: `{"name":"orders","scopes":[]}`, wantCode: "invalid_input", wantField: "scopes"},
		{name: "key scope unknown", path: "/v1/keys", body: `{"name":"orders","scopes":["write"]}`, wantCode: "invalid_input", wantField: "scopes"},
		{name: "key scope twice", path: "/v1/keys", body: `{"name":"orders","scopes":["read","read"]}`, wantCode: "invalid_input", wantField: "scopes"},
		{name: "key unknown field", path: "/v1/keys", body: `{"name":"orders","scopes":["read"],"secret":"sk_mine"}`, wantCode: "invalid_json"},
	}
	return append(out, flowBadRequests(long)...)
}

// beyondSchemaBadRequests are bad bodies of the flow endpoints that no
// request schema can refuse (two fields that must differ, lines in bounds
// whose merge is not): TestBadInputWritesNothing sends them, and
// TestRequestSchemasRefuseBadBodies, which reads badRequests, does not.
func beyondSchemaBadRequests() []badRequest {
	po := func(fields string) string {
		return `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z",` + fields + `}`
	}
	return []badRequest{
		// What a correction of a counter other than on_hand must carry
		// depends on counter: said in words in the document, since the
		// generators it serves take no if/then outside ProblemCodes.
		{name: "correction without basis", path: "/v1/adjustments", body: `{"sku":"A","reason":"correction","counter":"reserved","delta":-1,"discrepancy_id":1}`, wantCode: "invalid_input", wantField: "basis"},
		{name: "correction without discrepancy_id", path: "/v1/adjustments", body: `{"sku":"A","reason":"correction","counter":"committed","delta":-1,"basis":"b"}`, wantCode: "invalid_input", wantField: "discrepancy_id"},
		{name: "correction with another reason", path: "/v1/adjustments", body: `{"sku":"A","reason":"found","counter":"incoming","delta":1,"discrepancy_id":1,"basis":"b"}`, wantCode: "invalid_input", wantField: "reason"},
		{name: "correction with set_on_hand", path: "/v1/adjustments", body: `{"sku":"A","reason":"correction","counter":"quarantined","set_on_hand":1,"expected_on_hand":0,"discrepancy_id":1,"basis":"b"}`, wantCode: "invalid_input", wantField: "set_on_hand"},
		{name: "correction with expected_on_hand", path: "/v1/adjustments", body: `{"sku":"A","reason":"correction","counter":"in_transit","delta":1,"expected_on_hand":10,"discrepancy_id":1,"basis":"b"}`, wantCode: "invalid_input", wantField: "expected_on_hand"},
		{name: "basis on an on_hand adjustment", path: "/v1/adjustments", body: `{"sku":"A","reason":"found","delta":1,"basis":"b"}`, wantCode: "invalid_input", wantField: "basis"},
		{name: "move to the same state", path: "/v1/moves", body: `{"sku":"A","from":"available","to":"available","quantity":1}`, wantCode: "invalid_input", wantField: "to"},
		{name: "transfer to itself", path: "/v1/transfers", body: `{"sku":"A","from_location":"default","to_location":"default","quantity":1}`, wantCode: "invalid_input", wantField: "to_location"},
		{name: "purchase order merged quantity above 10^12", path: "/v1/purchase-orders", body: po(`"lines":[{"sku":"A","quantity":600000000000},{"sku":"A","quantity":600000000000}]`), wantCode: "invalid_input", wantField: "quantity"},
	}
}

// edgeBadRequests are the inputs the outside fault drill found passing
// validation: times whose UTC year falls outside 1-9999 (they panicked in
// the engine's goroutine when the document was encoded, killing the
// process) and text with a NUL byte, another control character or invalid
// UTF-8 (PostgreSQL refused the NUL and failed the whole batch; SQLite
// stored it). Both databases must refuse them alike, as 400.
func edgeBadRequests() []badRequest {
	po := func(expectedAt string) string {
		return `{"supplier":"Acme","expected_at":"` + expectedAt + `","lines":[{"sku":"A","quantity":1}]}`
	}
	campaign := func(starts, ends string) string {
		return `{"pool":"late","kind":"campaign","starts_at":"` + starts + `","ends_at":"` + ends + `"}`
	}
	return []badRequest{
		{name: "purchase order expected in UTC year 10000", path: "/v1/purchase-orders", body: po("9999-12-31T23:59:59-10:00"), wantCode: "invalid_input", wantField: "expected_at"},
		{name: "purchase order expected in UTC year -1", path: "/v1/purchase-orders", body: po("0000-01-01T00:00:00+05:00"), wantCode: "invalid_input", wantField: "expected_at"},
		{name: "campaign starting in UTC year -1", path: "/v1/pools", body: campaign("0000-01-01T00:00:00+05:00", "2026-12-31T00:00:00Z"), wantCode: "invalid_input", wantField: "starts_at"},
		{name: "campaign ending in UTC year 10000", path: "/v1/pools", body: campaign("2026-01-01T00:00:00Z", "9999-12-31T23:59:59-10:00"), wantCode: "invalid_input", wantField: "ends_at"},
		{name: "order_id with a newline", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1}],"order_id":"SO-1\nforged"}`, wantCode: "invalid_input", wantField: "order_id"},
		{name: "reference with a NUL byte", body: `{"sku":"A","quantity":1,"reference":"PO-\u00007"}`, wantCode: "invalid_input", wantField: "reference"},
		{name: "reference with a newline", body: `{"sku":"A","quantity":1,"reference":"PO-7\nforged log line"}`, wantCode: "invalid_input", wantField: "reference"},
		{name: "reference with DEL", body: `{"sku":"A","quantity":1,"reference":"PO-7\u007f"}`, wantCode: "invalid_input", wantField: "reference"},
		{name: "reference with a C1 control", body: `{"sku":"A","quantity":1,"reference":"PO-7\u009b"}`, wantCode: "invalid_input", wantField: "reference"},
		{name: "reference not UTF-8", body: "{\"sku\":\"A\",\"quantity\":1,\"reference\":\"PO-\xff7\"}", wantCode: "invalid_json"},
		{name: "reference with half a surrogate pair", body: `{"sku":"A","quantity":1,"reference":"PO-\ud8007"}`, wantCode: "invalid_json"},
		{name: "reference with a low surrogate alone", body: `{"sku":"A","quantity":1,"reference":"\udc00"}`, wantCode: "invalid_json"},
		{name: "a repeated key", body: `{"sku":"A","quantity":1,"quantity":999}`, wantCode: "invalid_json"},
		{name: "a repeated key in a line", path: "/v1/reservations", body: `{"lines":[{"sku":"A","quantity":1,"sku":"B"}]}`, wantCode: "invalid_json"},
		{name: "sku name with a NUL byte", path: "/v1/skus", body: `{"sku":"NUL","name":"Tee\u0000"}`, wantCode: "invalid_input", wantField: "name"},
		{name: "location name with an escape sequence", path: "/v1/locations", body: `{"location":"L9","name":"\u001b[31mred"}`, wantCode: "invalid_input", wantField: "name"},
		{name: "supplier with a NUL byte", path: "/v1/purchase-orders", body: `{"supplier":"Ac\u0000me","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"A","quantity":1}]}`, wantCode: "invalid_input", wantField: "supplier"},
		{name: "reservation sku with a NUL byte", path: "/v1/reservations", body: `{"lines":[{"sku":"A\u0000","quantity":1}]}`, wantCode: "invalid_input", wantField: "sku"},
	}
}

// flowBadRequests are the bad bodies of the flow endpoints (returns,
// quarantine, moves, shipments, transfers, purchase orders).
func flowBadRequests(long string) []badRequest {
	po := func(fields string) string {
		return `{"supplier":"Acme","expected_at":"2026-12-10T00:00:00Z",` + fields + `}`
	}
	poLines := func(n int) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = `{"sku":"A","quantity":1}`
		}
		return `"lines":[` + strings.Join(parts, ",") + `]`
	}
	return []badRequest{
		// Returns.
		{name: "return reservation missing", path: "/v1/returns", body: `{"lines":[{"sku":"A","quantity":1}]}`, wantCode: "invalid_input", wantField: "reservation_id"},
		{name: "return no lines", path: "/v1/returns", body: `{"reservation_id":"{pending}","lines":[]}`, wantCode: "invalid_input", wantField: "lines"},
		{name: "return 101 lines", path: "/v1/returns", body: `{"reservation_id":"{pending}",` + poLines(101) + `}`, wantCode: "invalid_input", wantField: "lines"},
		{name: "return quantity 0", path: "/v1/returns", body: `{"reservation_id":"{pending}","lines":[{"sku":"A","quantity":0}]}`, wantCode: "invalid_input", wantField: "quantity"},
		{name: "return quantity missing", path: "/v1/returns", body: `{"reservation_id":"{pending}","lines":[{"sku":"A"}]}`, wantCode: "invalid_input", wantField: "lines.quantity"},
		{name: "return sku characters", path: "/v1/returns", body: `{"reservation_id":"{pending}","lines":[{"sku":"a b","quantity":1}]}`, wantCode: "invalid_input", wantField: "sku"},
		{name: "return unknown field", path: "/v1/returns", body: `{"reservation_id":"{pending}","lines":[{"sku":"A","quantity":1}],"refund":true}`, wantCode: "invalid_json"},
		{name: "return unknown reservation", path: "/v1/returns", body: `{"reservation_id":"r-unknown","lines":[{"sku":"A","quantity":1}]}`, wantCode: "not_found"},
		{name: "return of a pending reservation", path: "/v1/returns", body: `{"reservation_id":"{pending}","lines":[{"sku":"A","quantity":1}]}`, wantCode: "invalid_transition"},
		{name: "return of a released reservation", path: "/v1/returns", body: `{"reservation_id":"{released}","lines":[{"sku":"A","quantity":1}]}`, wantCode: "invalid_transition"},

		// Quarantine and moves.
		{name: "quarantine release quantity missing", path: "/v1/quarantine/release", body: `{"sku":"A"}`, wantCode: "invalid_input", wantField: "quantity"},
		{name: "quarantine release with a reason", path: "/v1/quarantine/release", body: `{"sku":"A","quantity":1,"reason":"damage"}`, wantCode: "invalid_input", wantField: "reason"},
		{name: "quarantine release more than quarantined", path: "/v1/quarantine/release", body: `{"sku":"A","quantity":1}`, wantCode: "quantity_exceeded"},
		{name: "quarantine release unknown sku", path: "/v1/quarantine/release", body: `{"sku":"NOPE","quantity":1}`, wantCode: "unknown_sku"},
		{name: "quarantine scrap reason unknown", path: "/v1/quarantine/scrap", body: `{"sku":"A","quantity":1,"reason":"theft"}`, wantCode: "invalid_input", wantField: "reason"},
		{name: "quarantine scrap quantity fractional", path: "/v1/quarantine/scrap", body: `{"sku":"A","quantity":0.5}`, wantCode: "invalid_input", wantField: "quantity"},
		{name: "quarantine scrap more than quarantined", path: "/v1/quarantine/scrap", body: `{"sku":"A","quantity":1}`, wantCode: "quantity_exceeded"},
		{name: "move state unknown", path: "/v1/moves", body: `{"sku":"A","from":"available","to":"broken","quantity":1}`, wantCode: "invalid_input", wantField: "to"},
		{name: "move quantity above 10^12", path: "/v1/moves", body: `{"sku":"A","from":"available","to":"quarantined","quantity":1000000000001}`, wantCode: "invalid_input", wantField: "quantity"},
		{name: "move more than available", path: "/v1/moves", body: `{"sku":"A","from":"available","to":"quarantined","quantity":10}`, wantCode: "insufficient_stock"},
		{name: "move more than quarantined", path: "/v1/moves", body: `{"sku":"A","from":"quarantined","to":"available","quantity":1}`, wantCode: "quantity_exceeded"},

		// Shipments.
		{name: "shipment no lines", path: "/v1/shipments", body: `{"lines":[]}`, wantCode: "invalid_input", wantField: "lines"},
		{name: "shipment 101 lines", path: "/v1/shipments", body: `{` + poLines(101) + `}`, wantCode: "invalid_input", wantField: "lines"},
		{name: "shipment quantity missing", path: "/v1/shipments", body: `{"lines":[{"sku":"A"}]}`, wantCode: "invalid_input", wantField: "lines.quantity"},
		{name: "shipment of a sku held at order", path: "/v1/shipments", body: `{"lines":[{"sku":"A","quantity":1}]}`, wantCode: "deduction_timing"},

		// Transfers.
		{name: "transfer target missing", path: "/v1/transfers", body: `{"sku":"A","from_location":"default","quantity":1}`, wantCode: "invalid_input", wantField: "to_location"},
		{name: "transfer quantity 0", path: "/v1/transfers", body: `{"sku":"A","from_location":"default","to_location":"L9","quantity":0}`, wantCode: "invalid_input", wantField: "quantity"},
		{name: "transfer location length 65", path: "/v1/transfers", body: `{"sku":"A","from_location":"` + long + `","to_location":"default","quantity":1}`, wantCode: "invalid_input", wantField: "from_location"},
		{name: "transfer unknown target", path: "/v1/transfers", body: `{"sku":"A","from_location":"default","to_location":"nowhere","quantity":1}`, wantCode: "unknown_location"},
		{name: "transfer receipt quantity missing", path: "/v1/transfers/t-unknown/receipts", body: `{}`, wantCode: "invalid_input", wantField: "quantity"},
		{name: "transfer receipt id characters", path: "/v1/transfers/a%20b/receipts", body: `{"quantity":1}`, wantCode: "invalid_input", wantField: "id"},
		{name: "transfer receipt unknown field", path: "/v1/transfers/t-unknown/receipts", body: `{"quantity":1,"sku":"A"}`, wantCode: "invalid_json"},
		{name: "transfer receipt unknown transfer", path: "/v1/transfers/t-unknown/receipts", body: `{"quantity":1}`, wantCode: "not_found"},
		{name: "transfer cancel with a field", path: "/v1/transfers/t-unknown/cancel", body: `{"force":true}`, wantCode: "invalid_json"},
		{name: "transfer cancel unknown transfer", path: "/v1/transfers/t-unknown/cancel", wantCode: "not_found"},

		// Purchase orders.
		{name: "purchase order supplier missing", path: "/v1/purchase-orders", body: `{"expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"A","quantity":1}]}`, wantCode: "invalid_input", wantField: "supplier"},
		{name: "purchase order supplier too long", path: "/v1/purchase-orders", body: `{"supplier":"` + strings.Repeat("s", stockd.NameLengthMax+1) + `","expected_at":"2026-12-10T00:00:00Z","lines":[{"sku":"A","quantity":1}]}`, wantCode: "invalid_input", wantField: "supplier"},
		{name: "purchase order expected_at missing", path: "/v1/purchase-orders", body: `{"supplier":"Acme","lines":[{"sku":"A","quantity":1}]}`, wantCode: "invalid_input", wantField: "expected_at"},
		{name: "purchase order no lines", path: "/v1/purchase-orders", body: po(`"lines":[]`), wantCode: "invalid_input", wantField: "lines"},
		{name: "purchase order 101 lines", path: "/v1/purchase-orders", body: po(poLines(101)), wantCode: "invalid_input", wantField: "lines"},
		{name: "purchase order quantity missing", path: "/v1/purchase-orders", body: po(`"lines":[{"sku":"A"}]`), wantCode: "invalid_input", wantField: "lines.quantity"},
		{name: "purchase order id characters", path: "/v1/purchase-orders", body: po(`"id":"a b","lines":[{"sku":"A","quantity":1}]`), wantCode: "invalid_input", wantField: "id"},
		{name: "purchase order unknown sku", path: "/v1/purchase-orders", body: po(`"lines":[{"sku":"NOPE","quantity":1}]`), wantCode: "unknown_sku"},
		{name: "purchase order unknown location", path: "/v1/purchase-orders", body: po(`"lines":[{"sku":"A","location":"nowhere","quantity":1}]`), wantCode: "unknown_location"},
		{name: "purchase order receipt no lines", path: "/v1/purchase-orders/po-unknown/receipts", body: `{"lines":[]}`, wantCode: "invalid_input", wantField: "lines"},
		{name: "purchase order receipt unknown order", path: "/v1/purchase-orders/po-unknown/receipts", body: `{"lines":[{"sku":"A","quantity":1}]}`, wantCode: "not_found"},
		{name: "purchase order cancel unknown order", path: "/v1/purchase-orders/po-unknown/cancel", wantCode: "not_found"},
	}
}

// TestBadInputWritesNothing sends every bad input the issue lists (and the
// refusals of the books) and checks the status, the code, the field, and
// that neither the ledger nor the stock moved.
func TestBadInputWritesNothing(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		var pending, released Reservation
		h.must("POST", "/v1/reservations", "setup-pending", `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusCreated, &pending)
		h.must("POST", "/v1/reservations", "setup-released", `{"lines":[{"sku":"A","quantity":1}]}`, http.StatusCreated, &released)
		h.must("POST", "/v1/reservations/"+released.ID+"/release", "setup-release", "", http.StatusOK, nil)
		for i, c := range slices.Concat(badRequests(), beyondSchemaBadRequests(), edgeBadRequests()) {
			t.Run(c.name, func(t *testing.T) {
				h.t = t
				before := h.books("A")
				method, path := c.method, c.path
				if method == "" {
					method = http.MethodPost
				}
				if path == "" {
					path = "/v1/receipts"
				}
				ids := strings.NewReplacer("{pending}", pending.ID, "{released}", released.ID)
				path, body := ids.Replace(path), ids.Replace(c.body)
				key := c.key
				switch key {
				case "":
					key = fmt.Sprintf("bad-%d", i)
				case "-":
					key = ""
				}
				a := h.sendHeaders(method, path, []byte(body), map[string]string{headerIdempotencyKey: key, headerActor: c.actor})
				p := a.problem(t)
				wantStatus := statusOf(c.wantCode)
				if a.status != wantStatus || p.Code != c.wantCode || p.Status != wantStatus {
					t.Fatalf("got %d %s (problem status %d), want %d %s: %s", a.status, p.Code, p.Status, wantStatus, c.wantCode, a.body)
				}
				if a.status >= 500 {
					t.Fatalf("bad input answered %d", a.status)
				}
				if c.wantField != "" && p.Field != c.wantField {
					t.Errorf("field %q, want %q: %s", p.Field, c.wantField, a.body)
				}
				if ct := a.header.Get("Content-Type"); ct != "application/problem+json" {
					t.Errorf("Content-Type %q, want application/problem+json", ct)
				}
				h.requireUnchanged(before, "A")
			})
		}
	})
}

// TestBodyTooLargeChunked sends an oversized body without a Content-Length,
// so that only the reading limit can catch it.
func TestBodyTooLargeChunked(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		before := h.books("A")
		body := `{"sku":"A","quantity":1,"reference":"` + strings.Repeat("r", 2*stockd.BodySizeMax) + `"}`
		// A reader of unknown length makes the client send it chunked.
		req, err := http.NewRequest(http.MethodPost, h.url+"/v1/receipts", io.MultiReader(strings.NewReader(body)))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set(headerIdempotencyKey, "chunked")
		resp, err := h.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("status %d, want 413", resp.StatusCode)
		}
		h.requireUnchanged(before, "A")
	})
}

// TestReadsRefuseBadInput covers the query and path checks of the reads.
func TestReadsRefuseBadInput(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(1, "A")
		for _, c := range readBadRequests() {
			a := h.send(http.MethodGet, c.path, "", nil)
			if p := a.problem(t); a.status != statusOf(c.wantCode) || p.Code != c.wantCode {
				t.Errorf("GET %s: %d %s, want %d %s", c.path, a.status, p.Code, statusOf(c.wantCode), c.wantCode)
			}
		}
		a := h.send(http.MethodDelete, "/v1/skus", "k", nil)
		if p := a.problem(t); a.status != http.StatusMethodNotAllowed || p.Code != CodeMethodNotAllowed || strings.Join(a.header.Values("Allow"), ", ") != "GET, POST" {
			t.Errorf("DELETE /v1/skus: %d %s Allow %q, want 405 %s Allow GET, POST", a.status, p.Code, a.header.Values("Allow"), CodeMethodNotAllowed)
		}
	})
}

// readBadRequest is a read that must be refused.
type readBadRequest struct {
	path     string
	wantCode string
}

func readBadRequests() []readBadRequest {
	return []readBadRequest{

		{"/v1/stock/NOPE", "unknown_sku"},
		{"/v1/stock/a%20b", "invalid_input"},
		{"/v1/skus/NOPE", "unknown_sku"},
		{"/v1/skus/" + strings.Repeat("s", 65), "invalid_input"},
		{"/v1/reservations/nope", "not_found"},
		{"/v1/reservations/" + strings.Repeat("r", 65), "invalid_input"},
		{"/v1/reservations/a%3Bb", "invalid_input"},
		{"/v1/reservations?key=nope", "not_found"},
		{"/v1/requests/never-sent", "not_found"},
		// A parameter a read does not take is refused, never ignored.
		{"/v1/ledger?kind=reserve", "invalid_input"},
		{"/v1/ledger?sku=A&business=x", "invalid_input"},
		// The ledger's filters, out of bounds.
		{"/v1/ledger?type=Reserve", "invalid_input"},
		{"/v1/ledger?type=", "invalid_input"},
		{"/v1/ledger?business_id=" + strings.Repeat("k", 129), "invalid_input"},
		{"/v1/ledger?reservation_id=a%20b", "invalid_input"},
		{"/v1/ledger?location=x/y", "invalid_input"},
		{"/v1/ledger?from=yesterday", "invalid_input"},
		{"/v1/ledger?to=2026-12-01", "invalid_input"},
		{"/v1/ledger?from=2026-12-02T00:00:00Z&to=2026-12-01T00:00:00Z", "invalid_input"},
		{"/v1/ledger?from=2026-12-02T00:00:00Z&to=2026-12-02T00:00:00Z", "invalid_input"},
		{"/v1/ledger?to=0000-01-01T00:00:00%2B05:00", "invalid_input"},
		{"/v1/skus/A?fields=name", "invalid_input"},
		{"/v1/skus?limit=0", "invalid_input"},
		{"/v1/skus?after=a%20b", "invalid_input"},
		{"/v1/requests/" + strings.Repeat("k", 129), "invalid_input"},
		{"/v1/reservations?key=k&status=pending", "invalid_input"},
		{"/v1/reservations?status=open", "invalid_input"},
		{"/v1/reservations?sku=a%20b", "invalid_input"},
		{"/v1/reservations?customer_id=%C3%A9", "invalid_input"},
		{"/v1/reservations?order_id=", "invalid_input"},
		{"/v1/reservations?order_id=" + strings.Repeat("o", 201), "invalid_input"},
		{"/v1/reservations?order_id=SO%0A1", "invalid_input"},
		{"/v1/reservations?created_before=yesterday", "invalid_input"},
		{"/v1/reservations?after=a%20b", "invalid_input"},
		{"/v1/reservations?limit=1001", "invalid_input"},
		{"/v1/reservations?state=pending", "invalid_input"},
		{"/v1/transfers?limit=0", "invalid_input"},
		{"/v1/transfers?after=a%20b", "invalid_input"},
		{"/v1/transfers?status=open", "invalid_input"},
		{"/v1/purchase-orders?status=closed", "invalid_input"},
		{"/v1/purchase-orders?status=", "invalid_input"},
		{"/v1/purchase-orders?limit=1001", "invalid_input"},
		{"/v1/audit-events?after=-1", "invalid_input"},
		{"/v1/stock?below=-1", "invalid_input"},
		{"/v1/stock?below=ten", "invalid_input"},
		{"/v1/stock?location=a%20b", "invalid_input"},
		{"/v1/stock?pool=p*", "invalid_input"},
		{"/v1/stock?limit=0", "invalid_input"},
		{"/v1/stock?sku=A", "invalid_input"},
		{"/v1/audit-events?limit=ten", "invalid_input"},
		{"/v1/audit-events?kind=key_create", "invalid_input"},
		{"/v1/reservations?key=" + strings.Repeat("k", 129), "invalid_input"},
		{"/v1/ledger?limit=0", "invalid_input"},
		{"/v1/ledger?limit=1001", "invalid_input"},
		{"/v1/ledger?limit=ten", "invalid_input"},
		{"/v1/ledger?after=-1", "invalid_input"},
		{"/v1/ledger?after=1.5", "invalid_input"},
		{"/v1/ledger?sku=a*b", "invalid_input"},
		{"/v1/ledger?sku=NOPE", "unknown_sku"},
		{"/v1/events?limit=100000", "invalid_input"},
		{"/v1/nothing", "not_found"},
		{"/v1/discrepancies?status=pending", "invalid_input"},
		{"/v1/discrepancies?kind=nope", "invalid_input"},
		{"/v1/discrepancies?sku=a*b", "invalid_input"},
		{"/v1/discrepancies?limit=0", "invalid_input"},
		{"/v1/discrepancies?after=-1", "invalid_input"},
		{"/v1/discrepancies?position=A", "invalid_input"},
		{"/v1/discrepancies/0", "invalid_input"},
		{"/v1/discrepancies/one", "invalid_input"},
		{"/v1/discrepancies/1?verbose=1", "invalid_input"},
		{"/v1/discrepancies/9999", "unknown_discrepancy"},
		{"/v1/replenishment/NOPE", "unknown_sku"},
		{"/v1/replenishment/A?as_of=2026-02-29", "invalid_input"},
		{"/v1/replenishment/A?as_of=20260101", "invalid_input"},
		{"/v1/replenishment/A?status=ok", "invalid_input"},
		{"/v1/replenishment?status=red", "invalid_input"},
		{"/v1/replenishment?limit=1000", "invalid_input"},
		{"/v1/settings/replenishment?sku=A", "invalid_input"},
		{"/v1/alerts?level=red", "invalid_input"},
		{"/v1/alerts?status=closed", "invalid_input"},
		{"/v1/alerts?acked=true", "invalid_input"},
		{"/v1/alerts?after=x", "invalid_input"},
		{"/v1/alerts/x", "invalid_input"},
		{"/v1/alerts/-1", "invalid_input"},
		{"/v1/alerts/99999", "not_found"},
		{"/v1/alerts/99999/deliveries", "not_found"},
	}
}
