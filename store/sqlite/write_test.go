package sqlite

import (
	"context"
	"testing"
)

// TestAppendJSONString reads strings back through the JSON path of Write's
// statements (rowsCTE, jsonb and ->>): they must come back byte for byte.
func TestAppendJSONString(t *testing.T) {
	s := newTestStore(t)
	tests := []string{
		"",
		"plain",
		`quote " and backslash \ and \" both`,
		"controls \x00 \x01 \t \n \r \x1f end",
		"unicode ü € 日本 😀",
		"\u2028\u2029",
		"invalid utf-8 \xff\xfe \xc3",
		"looks like a number: 12",
		`{"json": [1, 2]}`,
	}
	for _, want := range tests {
		row := jsonRow{b: []byte{'['}}
		row.text(want)
		row.integer(-42)
		param := string(append(row.b, ']'))
		var got, textType string
		var number int64
		err := s.writer.QueryRowContext(context.Background(),
			rowsCTE+` SELECT v ->> 0, typeof(v ->> 0), v ->> 1 FROM r`, "["+param+"]").Scan(&got, &textType, &number)
		if err != nil {
			t.Errorf("read back %q: %v", want, err)
			continue
		}
		if got != want || textType != "text" || number != -42 {
			t.Errorf("read back %q = %q (%s), %d; want %q (text), -42", param, got, textType, number, want)
		}
	}
}
