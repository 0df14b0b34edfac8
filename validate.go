package stockd

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// ValidIdentifier reports whether s is 1-64 characters of [A-Za-z0-9._:-].
// SKU, location and pool ids share this shape.
func ValidIdentifier(s string) bool {
	if len(s) == 0 || len(s) > IdentifierLengthMax {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// ValidIdempotencyKey reports whether key is 1-128 printable ASCII characters.
func ValidIdempotencyKey(key string) bool {
	if len(key) == 0 || len(key) > IdempotencyKeyLengthMax {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// PlainText reports whether s is valid UTF-8 without control characters.
// Free text ends up in both databases, in logs and in other systems'
// feeds: PostgreSQL refuses a NUL byte where SQLite stores it, and a
// newline or an escape sequence in a log line forges another line. One
// rule at the edge keeps both databases answering alike.
func PlainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func validText(field, s string, lengthMax int, required bool) *Error {
	if required && s == "" {
		return InvalidField(field, "is required")
	}
	if len(s) > lengthMax {
		return InvalidField(field, "longer than %d bytes", lengthMax)
	}
	if !PlainText(s) {
		return InvalidField(field, "must be UTF-8 text without control characters")
	}
	return nil
}

// NormalizeTime returns t in UTC at the microsecond both databases keep,
// or an error when its UTC year lies outside TimeYearMin to TimeYearMax:
// a time the API could not write back as RFC 3339 and PostgreSQL and
// SQLite would store differently, if at all.
func NormalizeTime(field string, t time.Time) (time.Time, *Error) {
	utc := t.UTC().Truncate(time.Microsecond)
	if y := utc.Year(); y < TimeYearMin || y > TimeYearMax {
		return time.Time{}, InvalidField(field, "must be a time from year %d to %d in UTC", TimeYearMin, TimeYearMax)
	}
	return utc, nil
}

func validQuantity(field string, q int64) *Error {
	if q <= 0 || q > QuantityMax {
		return InvalidField(field, "must be an integer from 1 to %d", QuantityMax)
	}
	return nil
}

// NormalizeKey fills the default location and pool and validates the key.
func NormalizeKey(k *PositionKey) *Error {
	if k.Location == "" {
		k.Location = LocationDefault
	}
	if k.Pool == "" {
		k.Pool = PoolDefault
	}
	if !ValidIdentifier(k.SKU) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if !ValidIdentifier(k.Location) {
		return InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if !ValidIdentifier(k.Pool) {
		return InvalidField("pool", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	return nil
}

// Normalize fills defaults and checks every bound of c. A command that
// fails here never reaches storage.
func (c *Command) Normalize() *Error {
	if c.IdempotencyKey != "" && !validStoredKey(c.IdempotencyKey) {
		return Errorf(CodeIdempotencyKeyInvalid, "idempotency key must be 1-%d printable ASCII characters", IdempotencyKeyLengthMax)
	}
	if c.Op == nil {
		panic("stockd: command without an operation")
	}
	return c.Op.normalize()
}
