// Package jsonappend writes the few JSON values the hot path's answers hold
// (strings, times) exactly as encoding/json writes them, without
// reflection. Each reports false for a value whose encoding it does not
// reproduce, and the caller falls back to encoding/json: the stored
// answer of a reservation (stockd) and the HTTP answer (httpapi) both
// rest on these two, so they agree with encoding/json in one place.
package jsonappend

import "time"

// String appends s quoted, when no byte of it needs an escape in
// encoding/json's output (printable ASCII but the quote, the backslash and
// the HTML-escaped <, >, &); false otherwise.
func String(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// Time appends t as time.Time.MarshalJSON does (RFC 3339 with nanoseconds,
// trailing zeros cut); false for the years it refuses and for offsets in
// seconds or of a day or more, rare edges that MarshalJSON truncates or
// refuses.
func Time(b []byte, t time.Time) ([]byte, bool) {
	if y := t.Year(); y < 0 || y > 9999 {
		return b, false
	}
	if _, offset := t.Zone(); offset%60 != 0 || offset <= -24*3600 || offset >= 24*3600 {
		return b, false
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), true
}
