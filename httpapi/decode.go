package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"

	"github.com/stockd/stockd"
)

// readBody reads the whole body, at most stockd.BodySizeMax bytes. Reading
// it all before decoding makes every oversized body a 413, whatever it
// holds, rather than whichever error the decoder happens to meet first.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *stockd.Error) {
	if r.ContentLength > stockd.BodySizeMax {
		return nil, bodyTooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, stockd.BodySizeMax))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, bodyTooLarge()
		}
		return nil, stockd.Errorf(stockd.CodeInvalidJSON, "reading the body: %v", err)
	}
	return body, nil
}

func bodyTooLarge() *stockd.Error {
	return stockd.Errorf(stockd.CodeBodyTooLarge, "body larger than %d bytes", stockd.BodySizeMax)
}

// decodeStrict decodes body, one JSON object, into v. Unknown fields,
// malformed JSON and trailing data are invalid_json; a value of the wrong
// type (a quantity given as a string, a fraction, a number beyond int64) is
// invalid_input naming the field.
func decodeStrict(body []byte, v any) *stockd.Error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] != '{' {
		// null would decode into nothing and pass as an empty request.
		return stockd.Errorf(stockd.CodeInvalidJSON, "body must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return stockd.Errorf(stockd.CodeInvalidJSON, "body holds data after the JSON object")
	}
	return exactFieldNames(body, v)
}

// exactFieldNames refuses object keys that encoding/json matched to a
// field without being its name: it folds case ("SKU", even "ſku", match
// "sku"), where the document and every other client know only the exact
// names.
func exactFieldNames(body []byte, v any) *stockd.Error {
	var tree any
	if err := json.Unmarshal(body, &tree); err != nil {
		return decodeError(err)
	}
	names := map[string]bool{}
	collectFieldNames(reflect.TypeOf(v), names)
	return checkKeys(tree, names)
}

// collectFieldNames adds the JSON names of t's fields, and of the structs
// within, to names.
func collectFieldNames(t reflect.Type, names map[string]bool) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			names[name] = true
		}
		collectFieldNames(f.Type, names)
	}
}

func checkKeys(node any, names map[string]bool) *stockd.Error {
	switch n := node.(type) {
	case map[string]any:
		for k, child := range n {
			if !names[k] {
				return stockd.Errorf(stockd.CodeInvalidJSON, "unknown field %q", k)
			}
			if err := checkKeys(child, names); err != nil {
				return err
			}
		}
	case []any:
		for _, child := range n {
			if err := checkKeys(child, names); err != nil {
				return err
			}
		}
	}
	return nil
}

// decodeOptional is decodeStrict for bodies that may be empty.
func decodeOptional(body []byte, v any) *stockd.Error {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil
	}
	return decodeStrict(body, v)
}

func decodeError(err error) *stockd.Error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return stockd.InvalidField(typeErr.Field, "must be %s, not %s", jsonTypeName(typeErr.Type.String()), typeErr.Value)
	}
	if errors.As(err, &typeErr) {
		return stockd.Errorf(stockd.CodeInvalidJSON, "body must be a JSON object, not %s", typeErr.Value)
	}
	if errors.Is(err, io.EOF) {
		return stockd.Errorf(stockd.CodeInvalidJSON, "body is empty, expected a JSON object")
	}
	// Syntax errors, unknown fields and truncated bodies: encoding/json
	// gives these no type of their own beyond *json.SyntaxError, and its
	// message names the offending field or offset, which is what the caller
	// needs to fix the request.
	return stockd.Errorf(stockd.CodeInvalidJSON, "%s", trimJSONPrefix(err.Error()))
}

// jsonTypeName names a Go type the way a JSON caller thinks of it.
func jsonTypeName(goType string) string {
	switch goType {
	case "int64", "*int64", "int", "*int":
		return "an integer"
	case "bool", "*bool":
		return "true or false"
	case "string", "*string":
		return "a string"
	}
	if strings.HasPrefix(goType, "[]") {
		return "an array"
	}
	return "an object"
}

func trimJSONPrefix(s string) string {
	rest, _ := strings.CutPrefix(s, "json: ")
	return rest
}
