package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/stockd/stockd"
)

// readBody reads the whole body, at most stockd.BodySizeMax bytes. Reading
// it all before decoding makes every oversized body a 413, whatever it
// holds, rather than whichever error the decoder happens to meet first.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, *stockd.Error) {
	if err := jsonContentType(r); err != nil {
		return nil, err
	}
	if r.ContentLength > stockd.BodySizeMax {
		return nil, bodyTooLarge()
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, stockd.BodySizeMax))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return nil, bodyTooLarge()
		}
		// The read error names socket addresses; the caller needs none.
		return nil, stockd.Errorf(stockd.CodeInvalidJSON, "the body could not be read to its end")
	}
	return body, nil
}

// jsonContentType refuses a body labelled as anything but JSON: curl -d
// without a header sends application/x-www-form-urlencoded, and a form
// parsed as JSON by luck would be a worse surprise than a 415. No label
// at all is taken as JSON.
func jsonContentType(r *http.Request) *stockd.Error {
	header := r.Header.Get("Content-Type")
	if header == "" || header == "application/json" {
		return nil // no label, or the plain label: nothing to parse
	}
	mediaType, _, err := mime.ParseMediaType(header)
	if err == nil && (mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")) {
		return nil
	}
	return stockd.Errorf(stockd.CodeUnsupportedMediaType, "Content-Type %q: send application/json", header)
}

func bodyTooLarge() *stockd.Error {
	return stockd.Errorf(stockd.CodeBodyTooLarge, "body larger than %d bytes", stockd.BodySizeMax)
}

// decodeStrict decodes body, one JSON object, into v. Unknown fields,
// malformed JSON, text that is not UTF-8 and trailing data are
// invalid_json; a value of the wrong type (a quantity given as a string, a
// fraction, a number beyond int64) or a string holding a control character
// is invalid_input naming the field.
func decodeStrict(body []byte, v any) *stockd.Error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] != '{' {
		// null would decode into nothing and pass as an empty request.
		return stockd.Errorf(stockd.CodeInvalidJSON, "body must be a JSON object")
	}
	// encoding/json would replace invalid UTF-8, and escaped halves of
	// UTF-16 surrogate pairs, with U+FFFD without a word: the caller
	// would find other text stored than it sent.
	if !utf8.Valid(body) {
		return stockd.Errorf(stockd.CodeInvalidJSON, "body is not valid UTF-8")
	}
	if loneSurrogate(body) {
		return stockd.Errorf(stockd.CodeInvalidJSON, "body escapes half of a UTF-16 surrogate pair")
	}
	// One pass finds what encoding/json lets through: a repeated key
	// ({"quantity":1, "quantity":999} would reserve 999 where a proxy or a
	// log that reads the first sees 1), a key matched to a field only by
	// folding case, a string holding a control character.
	scan := scanBody(body, fieldNames(reflect.TypeOf(v)))
	if scan.hasRepeated {
		return stockd.Errorf(stockd.CodeInvalidJSON, "field %q appears more than once in one object", scan.repeated)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return stockd.Errorf(stockd.CodeInvalidJSON, "body holds data after the JSON object")
	}
	switch {
	case scan.malformed:
		// The decoder took what the scan did not: nesting deeper than
		// either allows is the only way there.
		return stockd.Errorf(stockd.CodeInvalidJSON, "body nests deeper than %d levels", nestingDepthMax)
	case scan.hasUnknown:
		// encoding/json folds case ("SKU", even "ſku", match "sku"), where
		// the document and every other client know only the exact names.
		return stockd.Errorf(stockd.CodeInvalidJSON, "unknown field %q", scan.unknown)
	case scan.notPlain:
		// One rule for every endpoint's text, whichever database stores it
		// (PostgreSQL refuses NUL, SQLite keeps it).
		return stockd.InvalidField(scan.notPlainField, "must be UTF-8 text without control characters")
	}
	return nil
}

// fieldNamesByType caches fieldNames: a request type's names never change.
var fieldNamesByType sync.Map // reflect.Type -> map[string]bool

// fieldNames returns the JSON names of t's fields and of the structs
// within, the only keys a body decoded into t may hold.
func fieldNames(t reflect.Type) map[string]bool {
	if names, ok := fieldNamesByType.Load(t); ok {
		return names.(map[string]bool)
	}
	names := map[string]bool{}
	collectFieldNames(t, names)
	fieldNamesByType.Store(t, names)
	return names
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

// loneSurrogate reports whether a JSON text escapes a UTF-16 surrogate
// (\uD800 to \uDFFF) that is not a high half directly followed by a low
// half.
func loneSurrogate(body []byte) bool {
	inString := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(body):
			if body[i+1] != 'u' {
				i++ // a two-character escape: skip what it escapes
				continue
			}
			r, ok := escapedUnit(body, i)
			if !ok {
				return false // malformed; the decoder says so
			}
			switch {
			case r >= 0xDC00 && r <= 0xDFFF:
				return true
			case r >= 0xD800 && r <= 0xDBFF:
				low, ok := escapedUnit(body, i+6)
				if !ok || low < 0xDC00 || low > 0xDFFF {
					return true
				}
				i += 6
			}
			i += 5
		}
	}
	return false
}

// escapedUnit reads the \uXXXX escape at body[i:].
func escapedUnit(body []byte, i int) (rune, bool) {
	if i+6 > len(body) || body[i] != '\\' || body[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, h := range body[i+2 : i+6] {
		switch {
		case h >= '0' && h <= '9':
			r = r<<4 | rune(h-'0')
		case h >= 'a' && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case h >= 'A' && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// decodeOptional is decodeStrict for bodies that may be empty.
// decodeOptional decodes the body of a mutation that needs none: no body,
// {} and null all mean the zero request, as clients send one or another
// for "nothing".
func decodeOptional(body []byte, v any) *stockd.Error {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil
	}
	return decodeStrict(body, v)
}

func decodeError(err error) *stockd.Error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return stockd.InvalidField(jsonFieldPath(typeErr.Field), "must be %s, not %s", jsonTypeName(typeErr.Type.String()), typeErr.Value)
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

// jsonFieldPath drops from a decoder's field path the Go names of the
// embedded structs a field came through ("ReplenishmentSettings.review_days"):
// the caller knows the JSON names only, which in this API are lower case.
func jsonFieldPath(path string) string {
	parts := strings.Split(path, ".")
	kept := parts[:0]
	for _, p := range parts {
		if p != "" && !unicode.IsUpper(rune(p[0])) {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, ".")
}

// jsonTypeName names a Go type the way a JSON caller thinks of it.
func jsonTypeName(goType string) string {
	switch goType {
	case "int64", "*int64", "int", "*int":
		return "an integer"
	case "float64", "*float64":
		return "a number"
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

// pathIdentifier returns the path value name, which must be an identifier
// (SKU, location, pool or reservation id shape).
func pathIdentifier(r *http.Request, name string) (string, *stockd.Error) {
	v := r.PathValue(name)
	if !stockd.ValidIdentifier(v) {
		return "", stockd.InvalidField(name, "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax)
	}
	return v, nil
}

func requiredQuantity(field string, q *int64) (int64, *stockd.Error) {
	if q == nil {
		return 0, stockd.InvalidField(field, "is required")
	}
	return *q, nil
}
