package httpapi

import (
	"bytes"
	"encoding/json"
	"flag"
	"mime"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var updateExamples = flag.Bool("update-examples", false, "rewrite openapi-examples.json from the exchanges of TestOpenAPIResponses")

// examplesExempt are operations whose answer is not JSON worth showing: the
// metrics text, and this document itself.
var examplesExempt = []string{"metrics", "openapi"}

// exampleSizeMax keeps examples readable: a larger answer is passed over
// for a smaller one of the same operation where there is one.
const exampleSizeMax = 3000

// recordExamples rewrites openapi-examples.json with one exchange per
// operation: the first accepted, not replayed, with a JSON answer of at
// most exampleSizeMax bytes, else the smallest.
func recordExamples(t *testing.T, c *contract, exchanges []exchange) {
	t.Helper()
	examples := map[string]operationExample{}
	for _, ex := range exchanges {
		media, _, _ := mime.ParseMediaType(ex.header.Get("Content-Type"))
		if ex.status >= 300 || media != "application/json" || ex.header.Get(headerReplayed) != "" {
			continue
		}
		method, path, _ := strings.Cut(ex.pattern, " ")
		id, _ := c.lookupAny("paths", path, strings.ToLower(method), "operationId").(string)
		if id == "" || slices.Contains(examplesExempt, id) {
			continue
		}
		if seen, ok := examples[id]; ok && (len(seen.Response.(json.RawMessage)) <= exampleSizeMax || len(seen.Response.(json.RawMessage)) <= len(ex.body)) {
			continue
		}
		e := operationExample{Status: strconv.Itoa(ex.status), MediaType: media}
		switch {
		case len(bytes.TrimSpace(ex.request)) == 0 || method == "GET":
		case json.Valid(ex.request):
			e.Request = json.RawMessage(ex.request)
		default:
			e.Request = string(ex.request) // a CSV file, shown as the text it is
		}
		e.Response = json.RawMessage(ex.body)
		examples[id] = e
	}
	out, err := json.MarshalIndent(examples, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(examplesFile, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %d examples to %s", len(examples), examplesFile)
}

// TestOpenAPIExamples checks that every operation shows an example of its
// request and answer, and that each matches its schemas.
func TestOpenAPIExamples(t *testing.T) {
	c := loadContract(t)
	paths, _ := c.lookup("paths")
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			op := op.(map[string]any)
			id, _ := op["operationId"].(string)
			if slices.Contains(examplesExempt, id) {
				continue
			}
			found := false
			for status, resp := range op["responses"].(map[string]any) {
				content, _ := resp.(map[string]any)["content"].(map[string]any)
				for media, m := range content {
					if _, ok := m.(map[string]any)["example"]; !ok {
						continue
					}
					found = true
					checkExample(t, c, "paths", path, method, "responses", status, "content", media)
				}
			}
			if !found {
				t.Errorf("operation %s (%s %s) has no example: run go test ./httpapi -run TestOpenAPIResponses -update-examples", id, strings.ToUpper(method), path)
			}
			if c.lookupAny("paths", path, method, "requestBody", "content", "application/json", "example") != nil {
				checkExample(t, c, "paths", path, method, "requestBody", "content", "application/json")
			}
		}
	}
}

// checkExample validates the example of the media type object at tokens
// against that object's schema.
func checkExample(t *testing.T, c *contract, tokens ...string) {
	t.Helper()
	at := pointer(tokens...)
	s, err := c.schema(at + "/schema")
	if err != nil {
		t.Errorf("%s: %v", at, err)
		return
	}
	raw, err := json.Marshal(c.lookupAny(append(tokens, "example")...))
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("example at #%s does not match its schema: %v", at, err)
	}
}
