package httpapi

import (
	"bytes"
	"encoding/json"

	"github.com/stockd/stockd"
)

// nestingDepthMax is encoding/json's own limit of nested arrays and
// objects: the scan gives up where the decoder would.
const nestingDepthMax = 10000

// smallObjectKeysMax is how many keys of one object the scan compares one
// by one; past it, they go into a map.
const smallObjectKeysMax = 16

// bodyScan is what one pass over a request body finds that encoding/json
// lets through. Only repeated keys are reported when the body is
// malformed (up to the point where it is): the decoder names everything
// else wrong with such a body.
type bodyScan struct {
	// malformed: the scan met text that is not JSON and stopped there.
	malformed bool
	// repeated is the first key met twice in one object; the scan stops
	// there.
	repeated    string
	hasRepeated bool
	// unknown is the first key that is not one of the names the scan was
	// given (exactly: encoding/json matches names folding case).
	unknown    string
	hasUnknown bool
	// notPlainField is the key under which the first string holding a
	// control character (or not UTF-8) stands.
	notPlainField string
	notPlain      bool
}

// scanBody scans body, one JSON value, in one pass and without building
// it: the keys of every object, and every string. names, when not nil,
// holds the keys allowed anywhere in the body. Escaped strings are
// decoded; body must be valid UTF-8 (decodeStrict checks first).
func scanBody(body []byte, names map[string]bool) bodyScan {
	sc := bodyScanner{body: body, names: names}
	if !sc.value(nil) && !sc.found.hasRepeated {
		sc.found.malformed = true
	}
	return sc.found
}

// repeatedKey returns the first key that appears twice in one object of
// body. Malformed JSON reports none past the point where it is malformed:
// decoding refuses it with its own word.
func repeatedKey(body []byte) (string, bool) {
	found := scanBody(body, nil)
	return found.repeated, found.hasRepeated
}

type bodyScanner struct {
	body  []byte
	pos   int
	depth int
	names map[string]bool
	found bodyScan
}

// value scans the value at pos; field is the key it stands under (the
// array's, for an array's elements). It returns false when the scan must
// stop: malformed text, or a repeated key.
func (sc *bodyScanner) value(field []byte) bool {
	sc.space()
	if sc.pos >= len(sc.body) {
		return false
	}
	switch c := sc.body[sc.pos]; {
	case c == '{':
		return sc.object()
	case c == '[':
		return sc.array(field)
	case c == '"':
		s, ok := sc.str()
		if !ok {
			return false
		}
		if !sc.found.notPlain && !plainText(s) {
			sc.found.notPlain, sc.found.notPlainField = true, string(field)
		}
		return true
	case c == '-' || c >= '0' && c <= '9':
		return sc.number()
	case c == 't':
		return sc.literal("true")
	case c == 'f':
		return sc.literal("false")
	case c == 'n':
		return sc.literal("null")
	}
	return false
}

func (sc *bodyScanner) object() bool {
	if sc.depth++; sc.depth > nestingDepthMax {
		return false
	}
	defer func() { sc.depth-- }()
	sc.pos++ // {
	sc.space()
	if sc.pos < len(sc.body) && sc.body[sc.pos] == '}' {
		sc.pos++
		return true
	}
	var small [smallObjectKeysMax][]byte
	keys := small[:0]
	var many map[string]bool
	for {
		sc.space()
		if sc.pos >= len(sc.body) || sc.body[sc.pos] != '"' {
			return false
		}
		key, ok := sc.str()
		if !ok {
			return false
		}
		var repeated bool
		if repeated, keys, many = seenKey(key, keys, many); repeated {
			sc.found.repeated, sc.found.hasRepeated = string(key), true
			return false
		}
		if sc.names != nil && !sc.found.hasUnknown && !sc.names[string(key)] {
			sc.found.unknown, sc.found.hasUnknown = string(key), true
		}
		sc.space()
		if sc.pos >= len(sc.body) || sc.body[sc.pos] != ':' {
			return false
		}
		sc.pos++
		if !sc.value(key) {
			return false
		}
		if done, ok := sc.separator('}'); !ok || done {
			return ok
		}
	}
}

// seenKey reports whether one object already had key, and records it:
// one by one while the object is small (keys, which the caller keeps on
// its stack), in a map past smallObjectKeysMax.
func seenKey(key []byte, keys [][]byte, many map[string]bool) (bool, [][]byte, map[string]bool) {
	if many != nil {
		if many[string(key)] {
			return true, keys, many
		}
		many[string(key)] = true
		return false, keys, many
	}
	for _, k := range keys {
		if bytes.Equal(k, key) {
			return true, keys, many
		}
	}
	if len(keys) < smallObjectKeysMax {
		return false, append(keys, key), many
	}
	many = make(map[string]bool, 2*smallObjectKeysMax)
	for _, k := range keys {
		many[string(k)] = true
	}
	many[string(key)] = true
	return false, keys, many
}

// separator scans what follows an object's member or an array's element:
// a comma (done false: more follow) or closer (done). ok is false for
// anything else.
func (sc *bodyScanner) separator(closer byte) (done, ok bool) {
	sc.space()
	if sc.pos >= len(sc.body) {
		return false, false
	}
	switch sc.body[sc.pos] {
	case ',':
		sc.pos++
		return false, true
	case closer:
		sc.pos++
		return true, true
	}
	return false, false
}

func (sc *bodyScanner) array(field []byte) bool {
	if sc.depth++; sc.depth > nestingDepthMax {
		return false
	}
	defer func() { sc.depth-- }()
	sc.pos++ // [
	sc.space()
	if sc.pos < len(sc.body) && sc.body[sc.pos] == ']' {
		sc.pos++
		return true
	}
	for {
		if !sc.value(field) {
			return false
		}
		if done, ok := sc.separator(']'); !ok || done {
			return ok
		}
	}
}

// str scans the string at pos and returns its text: the body's own bytes
// when it escapes nothing, else the decoded text.
func (sc *bodyScanner) str() ([]byte, bool) {
	start := sc.pos
	sc.pos++ // "
	escaped := false
	for sc.pos < len(sc.body) {
		c := sc.body[sc.pos]
		switch {
		case c == '"':
			sc.pos++
			if !escaped {
				return sc.body[start+1 : sc.pos-1], true
			}
			var s string
			if err := json.Unmarshal(sc.body[start:sc.pos], &s); err != nil {
				return nil, false
			}
			return []byte(s), true
		case c < 0x20:
			return nil, false
		case c == '\\':
			escaped = true
			if sc.pos+1 >= len(sc.body) {
				return nil, false
			}
			switch sc.body[sc.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				sc.pos += 2
			case 'u':
				if _, ok := escapedUnit(sc.body, sc.pos); !ok {
					return nil, false
				}
				sc.pos += 6
			default:
				return nil, false
			}
		default:
			sc.pos++
		}
	}
	return nil, false
}

// number scans -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?.
func (sc *bodyScanner) number() bool {
	if sc.peek() == '-' {
		sc.pos++
	}
	switch c := sc.peek(); {
	case c == '0':
		sc.pos++
	case c >= '1' && c <= '9':
		sc.digits()
	default:
		return false
	}
	if sc.peek() == '.' {
		sc.pos++
		if !sc.digits() {
			return false
		}
	}
	if c := sc.peek(); c == 'e' || c == 'E' {
		sc.pos++
		if c := sc.peek(); c == '+' || c == '-' {
			sc.pos++
		}
		if !sc.digits() {
			return false
		}
	}
	return true
}

// digits scans one or more digits.
func (sc *bodyScanner) digits() bool {
	start := sc.pos
	for c := sc.peek(); c >= '0' && c <= '9'; c = sc.peek() {
		sc.pos++
	}
	return sc.pos > start
}

func (sc *bodyScanner) literal(word string) bool {
	if !bytes.HasPrefix(sc.body[sc.pos:], []byte(word)) {
		return false
	}
	sc.pos += len(word)
	return true
}

// peek is the byte at pos, 0 past the end.
func (sc *bodyScanner) peek() byte {
	if sc.pos < len(sc.body) {
		return sc.body[sc.pos]
	}
	return 0
}

func (sc *bodyScanner) space() {
	for sc.pos < len(sc.body) {
		switch sc.body[sc.pos] {
		case ' ', '\t', '\n', '\r':
			sc.pos++
		default:
			return
		}
	}
}

// plainText is stockd.PlainText of s, without a string copy for the
// common case: printable ASCII holds no control character.
func plainText(s []byte) bool {
	for _, c := range s {
		if c < 0x20 || c > 0x7e {
			return stockd.PlainText(string(s))
		}
	}
	return true
}
