package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// contract is openapi.json, parsed, with its schemas compiled on demand
// from JSON pointers into the document.
type contract struct {
	doc map[string]any

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	schemas  map[string]*jsonschema.Schema
}

// contractURL names the document as a resource of the schema compiler;
// nothing is fetched from it.
const contractURL = "https://stockd.invalid/openapi.json"

var (
	contractOnce   sync.Once
	loadedContract *contract
	contractErr    error
)

func loadContract(t testing.TB) *contract {
	t.Helper()
	contractOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(openAPIDocument))
		if err != nil {
			contractErr = fmt.Errorf("parse openapi.json: %w", err)
			return
		}
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		c.AssertFormat()
		if err := c.AddResource(contractURL, doc); err != nil {
			contractErr = fmt.Errorf("add openapi.json: %w", err)
			return
		}
		m, ok := doc.(map[string]any)
		if !ok {
			contractErr = fmt.Errorf("openapi.json is not an object")
			return
		}
		loadedContract = &contract{doc: m, compiler: c, schemas: map[string]*jsonschema.Schema{}}
	})
	if contractErr != nil {
		t.Fatal(contractErr)
	}
	return loadedContract
}

// pointer builds a JSON pointer, as a URL fragment, from tokens.
func pointer(tokens ...string) string {
	var b strings.Builder
	for _, tok := range tokens {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
		b.WriteString("/" + url.PathEscape(tok))
	}
	return b.String()
}

func (c *contract) schema(fragment string) (*jsonschema.Schema, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if s, ok := c.schemas[fragment]; ok {
		return s, nil
	}
	s, err := c.compiler.Compile(contractURL + "#" + fragment)
	if err != nil {
		return nil, fmt.Errorf("compile #%s: %w", fragment, err)
	}
	c.schemas[fragment] = s
	return s, nil
}

// lookup follows tokens from the root of the document.
func (c *contract) lookup(tokens ...string) (map[string]any, bool) {
	var node any = c.doc
	for _, tok := range tokens {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, false
		}
		if node, ok = m[tok]; !ok {
			return nil, false
		}
	}
	m, ok := node.(map[string]any)
	return m, ok
}

// response returns the documented response of an operation for a status,
// with the tokens of where it is defined (after following a $ref).
func (c *contract) response(path, method string, status int) (map[string]any, []string, bool) {
	tokens := []string{"paths", path, method, "responses", strconv.Itoa(status)}
	resp, ok := c.lookup(tokens...)
	if !ok {
		return nil, nil, false
	}
	if ref, ok := resp["$ref"].(string); ok {
		tokens = strings.Split(strings.TrimPrefix(ref, "#/"), "/")
		resp, ok = c.lookup(tokens...)
		if !ok {
			return nil, nil, false
		}
	}
	return resp, tokens, true
}

// operations lists "METHOD path" of every documented operation.
func (c *contract) operations() map[string]bool {
	ops := map[string]bool{}
	paths, _ := c.lookup("paths")
	for path, item := range paths {
		for method := range item.(map[string]any) {
			ops[strings.ToUpper(method)+" "+path] = true
		}
	}
	return ops
}

// checkExchanges checks every answer against the document: the status is
// documented for the operation, the content type too, the body validates
// against the schema, the headers stockd sets are declared, and no problem
// leaks an internal detail.
func checkExchanges(t testing.TB, exchanges []exchange) {
	t.Helper()
	c := loadContract(t)
	failures := 0
	for _, ex := range exchanges {
		if err := c.check(ex); err != nil {
			failures++
			if failures <= 20 {
				t.Errorf("%s %s answered %d against the contract: %v\n%s", ex.method, ex.path, ex.status, err, truncate(ex.body))
			}
		}
	}
	if failures > 20 {
		t.Errorf("... and %d more answers against the contract", failures-20)
	}
}

func truncate(b []byte) []byte {
	if len(b) > 2000 {
		return append(b[:2000:2000], "..."...)
	}
	return b
}

func (c *contract) check(ex exchange) error {
	if bytes.Contains(ex.body, []byte(injectedDetail)) {
		return fmt.Errorf("the answer leaks an internal error")
	}
	mediaType, _, err := mime.ParseMediaType(ex.header.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("content type %q: %w", ex.header.Get("Content-Type"), err)
	}
	if ex.pattern == "/" {
		// No route: the document says so in words, and the body is a problem.
		if mediaType != "application/problem+json" {
			return fmt.Errorf("content type %s, want application/problem+json", mediaType)
		}
		return c.validate(pointer("components", "schemas", "Problem"), ex)
	}
	method, path, ok := strings.Cut(ex.pattern, " ")
	if !ok {
		return fmt.Errorf("served by pattern %q without a method", ex.pattern)
	}
	resp, tokens, ok := c.response(path, strings.ToLower(method), ex.status)
	if !ok {
		return fmt.Errorf("status %d is not documented for %s", ex.status, ex.pattern)
	}
	declared, _ := resp["headers"].(map[string]any)
	for _, name := range []string{headerReplayed, "Retry-After"} {
		if _, set := ex.header[name]; set && declared[name] == nil {
			return fmt.Errorf("header %s is not documented for %s %d", name, ex.pattern, ex.status)
		}
	}
	if ex.status < 300 && len(bytes.TrimSpace(ex.request)) > 0 {
		if err := c.validateRequest(path, strings.ToLower(method), ex.request); err != nil {
			return fmt.Errorf("accepted a request the document refuses: %w", err)
		}
	}
	content, _ := resp["content"].(map[string]any)
	if content[mediaType] == nil {
		return fmt.Errorf("content type %s is not documented for %s %d", mediaType, ex.pattern, ex.status)
	}
	if mediaType != "application/json" && mediaType != "application/problem+json" {
		return nil
	}
	return c.validate(pointer(append(tokens, "content", mediaType, "schema")...), ex)
}

// validateRequest validates a request body against the operation's
// requestBody schema.
func (c *contract) validateRequest(path, method string, body []byte) error {
	if c.lookupAny("paths", path, method, "requestBody", "content", "application/json") == nil &&
		c.lookupAny("paths", path, method, "requestBody", "content", "text/csv") != nil {
		return nil // a CSV file (the imports): its rows are the server's to check, line by line
	}
	fragment := pointer("paths", path, method, "requestBody", "content", "application/json", "schema")
	s, err := c.schema(fragment)
	if err != nil {
		return err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("request is not JSON: %w", err)
	}
	if err := s.Validate(v); err != nil {
		return fmt.Errorf("request does not match #%s: %w", fragment, err)
	}
	return nil
}

func (c *contract) validate(fragment string, ex exchange) error {
	s, err := c.schema(fragment)
	if err != nil {
		return err
	}
	body, err := jsonschema.UnmarshalJSON(bytes.NewReader(ex.body))
	if err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	if err := s.Validate(body); err != nil {
		return fmt.Errorf("body does not match #%s: %w", fragment, err)
	}
	if strings.Contains(fragment, "problem") || strings.HasSuffix(fragment, "Problem") {
		var p Problem
		if err := json.Unmarshal(ex.body, &p); err != nil {
			return fmt.Errorf("decode problem: %w", err)
		}
		if p.Status != ex.status {
			return fmt.Errorf("problem status %d in an answer of %d", p.Status, ex.status)
		}
		codes, err := c.schema(pointer("components", "schemas", "ProblemCodes"))
		if err != nil {
			return err
		}
		if err := codes.Validate(body); err != nil {
			return fmt.Errorf("body does not match #/components/schemas/ProblemCodes: %w", err)
		}
	}
	return nil
}

// documentedCode reports whether the API document lists code among the
// problems an operation answers with status.
func documentedCode(t testing.TB, method, path string, status int, code string) bool {
	c := loadContract(t)
	resp, tokens, ok := c.response(path, strings.ToLower(method), status)
	if !ok {
		return false
	}
	allOf, _ := c.lookupAny(append(tokens, "content", "application/problem+json", "schema", "allOf")...).([]any)
	if resp == nil || len(allOf) < 2 {
		return false
	}
	codes, _ := allOf[1].(map[string]any)["properties"].(map[string]any)["code"].(map[string]any)["enum"].([]any)
	return slices.Contains(codes, any(code))
}

func (c *contract) lookupAny(tokens ...string) any {
	var node any = c.doc
	for _, tok := range tokens {
		m, ok := node.(map[string]any)
		if !ok {
			return nil
		}
		node = m[tok]
	}
	return node
}

// exerciseForms sends a body labelled as a form to every mutation route:
// each must answer 415 before it reads anything. It needs an open server
// (before exerciseKeys).
func exerciseForms(h *harness) {
	h.t.Helper()
	for _, rt := range h.server.routes() {
		method, path, _ := strings.Cut(rt.pattern, " ")
		if rt.scope == "" || (method != http.MethodPost && method != http.MethodPatch) {
			continue
		}
		path = pathParam.ReplaceAllString(path, "x")
		a := h.sendHeaders(method, path, []byte("sku=A"), map[string]string{"Content-Type": "application/x-www-form-urlencoded", headerIdempotencyKey: "form-" + rt.operation})
		if a.status != http.StatusUnsupportedMediaType {
			h.t.Errorf("%s with a form body: %d, want 415", rt.pattern, a.status)
		}
	}
}

// pathParam matches a route pattern's path parameter ({id}).
var pathParam = regexp.MustCompile(`\{[a-z]+\}`)
