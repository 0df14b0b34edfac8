package httpapi

import "testing"

func TestRepeatedKey(t *testing.T) {
	for _, c := range []struct {
		body string
		key  string
	}{
		{`{"a":1,"b":2}`, ""},
		{`{"a":1,"a":2}`, "a"},
		{`{"a":{"b":1},"b":{"b":2}}`, ""},
		{`{"a":{"b":1,"b":2}}`, "b"},
		{`{"lines":[{"sku":"x"},{"sku":"y"}]}`, ""},
		{`{"lines":[{"sku":"x","sku":"y"}]}`, "sku"},
		{`{"a":["a","a"],"b":"a"}`, ""},
		{`{"a":[{"a":1}],"a":2}`, "a"},
		{`{"a":1,"b"`, ""}, // malformed: decoding says so
	} {
		key, ok := repeatedKey([]byte(c.body))
		if key != c.key || ok != (c.key != "") {
			t.Errorf("repeatedKey(%s) = %q, %v, want %q", c.body, key, ok, c.key)
		}
	}
}

func TestDecodeOptionalNothing(t *testing.T) {
	for _, body := range []string{"", "  ", "{}", "null", " null\n"} {
		var req emptyRequest
		if err := decodeOptional([]byte(body), &req); err != nil {
			t.Errorf("decodeOptional(%q) = %v, want the zero request", body, err)
		}
	}
	for _, body := range []string{"[]", `"x"`, "0", `{"x":1}`, "nullx"} {
		var req emptyRequest
		if err := decodeOptional([]byte(body), &req); err == nil {
			t.Errorf("decodeOptional(%q) accepted it", body)
		}
	}
}
