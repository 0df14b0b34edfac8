package httpapi

import (
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
)

// The OpenAPI 3.1 description of this API lives in the repository as
// openapi.json (the shared parts: errors, counters, parameters, responses,
// the schemas several resources answer with, and the server's own
// endpoints) plus one fragment per resource under openapi/, named as its Go
// file, each holding "paths" and "components"."schemas" to add, plus
// openapi-examples.json: a real request and answer per operation, recorded
// from the contract test (openapi_examples.go).
// openAPIDocument is the merged document; openapi_test.go and
// contract_test.go check it against real answers.
//
//go:embed openapi.json openapi/*.json openapi-examples.json
var openAPIFiles embed.FS

var openAPIDocument = mustMergeOpenAPI()

func mustMergeOpenAPI() []byte {
	doc, err := mergeOpenAPI(openAPIFiles)
	if err != nil {
		panic("httpapi: " + err.Error())
	}
	return doc
}

// mergeOpenAPI adds every fragment's paths and schemas to openapi.json and
// refuses a name defined twice, so that two resources cannot silently
// replace each other's description.
func mergeOpenAPI(files fs.FS) ([]byte, error) {
	var doc map[string]any
	if err := readJSON(files, "openapi.json", &doc); err != nil {
		return nil, err
	}
	paths, _ := doc["paths"].(map[string]any)
	schemas, _ := doc["components"].(map[string]any)["schemas"].(map[string]any)
	if paths == nil || schemas == nil {
		return nil, fmt.Errorf("openapi.json lacks paths or components.schemas")
	}
	names, err := fs.Glob(files, "openapi/*.json")
	if err != nil {
		return nil, fmt.Errorf("list openapi fragments: %w", err)
	}
	for _, name := range names {
		var frag struct {
			Paths      map[string]any `json:"paths"`
			Components struct {
				Schemas map[string]any `json:"schemas"`
			} `json:"components"`
		}
		if err := readJSON(files, name, &frag); err != nil {
			return nil, err
		}
		for k, v := range frag.Paths {
			if err := mergePath(paths, k, v); err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
		}
		for k, v := range frag.Components.Schemas {
			if _, dup := schemas[k]; dup {
				return nil, fmt.Errorf("%s: schema %s is defined twice", name, k)
			}
			schemas[k] = v
		}
	}
	if err := addExamples(files, paths); err != nil {
		return nil, err
	}
	out, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode merged openapi document: %w", err)
	}
	return out, nil
}

// mergePath adds a fragment's operations on one path: a resource may add a
// method to a path another defined (PATCH beside GET), never redefine one.
func mergePath(paths map[string]any, path string, item any) error {
	ops, ok := item.(map[string]any)
	if !ok {
		return fmt.Errorf("path %s is not an object", path)
	}
	existing, ok := paths[path].(map[string]any)
	if !ok {
		paths[path] = ops
		return nil
	}
	for method, op := range ops {
		if _, dup := existing[method]; dup {
			return fmt.Errorf("operation %s %s is defined twice", method, path)
		}
		existing[method] = op
	}
	return nil
}

func readJSON(files fs.FS, name string, v any) error {
	b, err := fs.ReadFile(files, name)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("parse %s: %w", name, err)
	}
	return nil
}

// Index is the answer at /: where a person who opened the server's
// address in a browser, or a script, goes next.
type Index struct {
	Name    string `json:"name"`
	OpenAPI string `json:"openapi"`
	Health  string `json:"health"`
	Metrics string `json:"metrics"`
	API     string `json:"api"`
}

func (s *Server) index(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, Index{Name: "stockd", OpenAPI: "/openapi.json", Health: "/healthz", Metrics: "/metrics", API: "/v1"})
}

func (s *Server) openAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	// A failed write means the caller is gone.
	_, _ = w.Write(openAPIDocument)
}
