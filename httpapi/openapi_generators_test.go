package httpapi

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestOpenAPIForGenerators holds the document to the shapes that client
// generators read correctly (CI generates a Go client with oapi-codegen and
// TypeScript types with openapi-typescript from the served document, see
// clients/). Each rule names the generator behaviour it avoids.
func TestOpenAPIForGenerators(t *testing.T) {
	c := loadContract(t)
	declared := map[string]bool{}
	for _, tag := range c.doc["tags"].([]any) {
		declared[tag.(map[string]any)["name"].(string)] = true
	}
	for _, server := range c.doc["servers"].([]any) {
		if url := server.(map[string]any)["url"].(string); !strings.HasPrefix(url, "/") {
			t.Errorf("server %q: want a relative URL, so that the document is right wherever it is served", url)
		}
	}
	paths, _ := c.lookup("paths")
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			tags, _ := op.(map[string]any)["tags"].([]any)
			if len(tags) == 0 {
				t.Errorf("%s %s has no tag", strings.ToUpper(method), path)
			}
			for _, tag := range tags {
				if !declared[tag.(string)] {
					t.Errorf("%s %s: tag %q is not declared in the document's tags", strings.ToUpper(method), path, tag)
				}
			}
		}
	}
	var problems []string
	walkSchemas(c.doc, nil, func(path []string, node map[string]any) {
		at := "#/" + strings.Join(path, "/")
		// oapi-codegen turns a schema with if/then into interface{} fields
		// wherever it is referenced; the code-to-status table stands apart.
		if _, ok := node["if"]; ok && !slices.Contains(path, "ProblemCodes") {
			problems = append(problems, at+": if/then outside ProblemCodes")
		}
		// Without a type, a narrowed code becomes interface{}.
		if props, ok := node["properties"].(map[string]any); ok {
			if code, ok := props["code"].(map[string]any); ok && code["enum"] != nil && code["type"] != "string" {
				problems = append(problems, at+": a narrowed code without type: string")
			}
		}
		// Quantities reach 1e12 and beyond: a generator's default int may
		// be 32 bits (or a JavaScript number).
		if node["type"] == "integer" && node["format"] != "int64" && node["format"] != "int32" {
			problems = append(problems, at+": an integer without format int64 or int32")
		}
	})
	for _, p := range problems {
		t.Error(p)
	}
}

// TestProblemCodesMatchTheServer checks that ProblemCodes gives each code
// the status the server answers it with, and names every code.
func TestProblemCodesMatchTheServer(t *testing.T) {
	c := loadContract(t)
	codes, _ := c.lookup("components", "schemas", "ProblemCodes")
	documented := map[string]string{}
	for _, branch := range codes["allOf"].([]any) {
		b := branch.(map[string]any)
		code := b["if"].(map[string]any)["properties"].(map[string]any)["code"].(map[string]any)["const"].(string)
		status := b["then"].(map[string]any)["properties"].(map[string]any)["status"].(map[string]any)["const"]
		documented[code] = fmt.Sprint(status)
	}
	for code, info := range codeInfo {
		status, ok := documented[code]
		if !ok {
			t.Errorf("code %s: not in ProblemCodes", code)
			continue
		}
		if status != fmt.Sprint(info.status) {
			t.Errorf("code %s: ProblemCodes says %s, the server answers %d", code, status, info.status)
		}
	}
	for code := range documented {
		if _, ok := codeInfo[code]; !ok {
			t.Errorf("code %s: in ProblemCodes, unknown to the server", code)
		}
	}
}

// walkSchemas calls fn on every object of the document, with its path.
func walkSchemas(node any, path []string, fn func([]string, map[string]any)) {
	switch n := node.(type) {
	case map[string]any:
		fn(path, n)
		for k, v := range n {
			walkSchemas(v, append(slices.Clip(path), k), fn)
		}
	case []any:
		for i, v := range n {
			walkSchemas(v, append(slices.Clip(path), fmt.Sprint(i)), fn)
		}
	}
}
