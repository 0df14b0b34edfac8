package httpapi

import (
	"fmt"
	"io/fs"
)

// examplesFile holds one example per operation, by operationId: the body
// of a request the server accepted and of its answer, recorded from
// TestOpenAPIResponses (`go test ./httpapi -run TestOpenAPIResponses
// -update-examples`) rather than written by hand, so that each is an
// exchange that really happened. TestOpenAPIExamples checks each against
// its schemas.
const examplesFile = "openapi-examples.json"

// operationExample is one recorded exchange.
type operationExample struct {
	Request   any    `json:"request,omitempty"`
	Status    string `json:"status"`
	MediaType string `json:"media_type"`
	Response  any    `json:"response"`
}

// addExamples writes the recorded examples into the operations they belong
// to. An example for an operation, status or media type the document does
// not have is an error: the recording is stale.
func addExamples(files fs.FS, paths map[string]any) error {
	var examples map[string]operationExample
	if err := readJSON(files, examplesFile, &examples); err != nil {
		return err
	}
	used := map[string]bool{}
	for _, item := range paths {
		for _, op := range item.(map[string]any) {
			op, _ := op.(map[string]any)
			id, _ := op["operationId"].(string)
			ex, ok := examples[id]
			if !ok {
				continue
			}
			used[id] = true
			if err := addExample(op, ex); err != nil {
				return fmt.Errorf("%s: operation %s: %w", examplesFile, id, err)
			}
		}
	}
	for id := range examples {
		if !used[id] {
			return fmt.Errorf("%s: no operation %s", examplesFile, id)
		}
	}
	return nil
}

func addExample(op map[string]any, ex operationExample) error {
	if ex.Request != nil {
		media, ok := lookupObject(op, "requestBody", "content", "application/json")
		if _, text := ex.Request.(string); text && !ok {
			// A text body (the CSV imports) is recorded as a string.
			media, ok = lookupObject(op, "requestBody", "content", "text/csv")
		}
		if !ok {
			return fmt.Errorf("a request example, and no JSON or CSV request body")
		}
		media["example"] = ex.Request
	}
	media, ok := lookupObject(op, "responses", ex.Status, "content", ex.MediaType)
	if !ok {
		return fmt.Errorf("an example of %s %s, which the operation does not answer", ex.Status, ex.MediaType)
	}
	media["example"] = ex.Response
	return nil
}

func lookupObject(node map[string]any, keys ...string) (map[string]any, bool) {
	for _, k := range keys {
		next, ok := node[k].(map[string]any)
		if !ok {
			return nil, false
		}
		node = next
	}
	return node, true
}
