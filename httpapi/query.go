package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/stockd/stockd"
)

// A read given a query parameter it does not know answers 400, never as if
// the parameter were not there: GET /v1/ledger?type=reserve used to page
// through every entry, and a caller filtering by hand would not notice.
// What each read knows is what the served document lists for it, so the
// document and the server cannot disagree.

// documentedQueryParams maps each GET route pattern ("GET /v1/ledger") to
// the names of the query parameters the document gives it.
var documentedQueryParams = mustQueryParams(openAPIDocument)

func mustQueryParams(document []byte) map[string][]string {
	params, err := queryParams(document)
	if err != nil {
		panic("httpapi: " + err.Error())
	}
	return params
}

func queryParams(document []byte) (map[string][]string, error) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Parameters map[string]parameter `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(document, &doc); err != nil {
		return nil, fmt.Errorf("read the document's parameters: %w", err)
	}
	out := map[string][]string{}
	for path, ops := range doc.Paths {
		raw, ok := ops["get"]
		if !ok {
			continue
		}
		var op struct {
			Parameters []parameter `json:"parameters"`
		}
		if err := json.Unmarshal(raw, &op); err != nil {
			return nil, fmt.Errorf("GET %s: %w", path, err)
		}
		names := []string{}
		for _, p := range op.Parameters {
			if ref, ok := strings.CutPrefix(p.Ref, "#/components/parameters/"); ok {
				p, ok = doc.Components.Parameters[ref]
				if !ok {
					return nil, fmt.Errorf("GET %s: no parameter %s", path, ref)
				}
			}
			if p.In == "query" {
				names = append(names, p.Name)
			}
		}
		out["GET "+path] = names
	}
	return out, nil
}

type parameter struct {
	Ref  string `json:"$ref"`
	Name string `json:"name"`
	In   string `json:"in"`
}

// strictQuery refuses a GET whose query names a parameter the route's
// document does not list.
func strictQuery(pattern string, h http.HandlerFunc) http.HandlerFunc {
	if !strings.HasPrefix(pattern, "GET ") {
		return h
	}
	known := documentedQueryParams[documentedRoute(pattern)]
	return func(w http.ResponseWriter, r *http.Request) {
		for name := range r.URL.Query() {
			if !slices.Contains(known, name) {
				writeProblem(w, stockd.InvalidField(name, "is not a parameter of %s; it takes %s", r.URL.Path, parameterList(known)))
				return
			}
		}
		h(w, r)
	}
}

// documentedRoute is how the document names a route's pattern: the root
// and nothing below it ("GET /{$}") is its path "/".
func documentedRoute(pattern string) string { return strings.TrimSuffix(pattern, "{$}") }

func parameterList(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
