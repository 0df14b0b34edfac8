package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// fill sets every field of the struct v points to, recursively, from seed:
// a field added to an answer type later is filled too, so that its
// appendJSON cannot silently leave it out.
func fill(t *testing.T, v reflect.Value, text string, seed int64) {
	t.Helper()
	switch v.Kind() {
	case reflect.Pointer:
		fill(t, v.Elem(), text, seed)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 12, 5, 3, 4, 5, int(seed)*1000, time.UTC)))
			return
		}
		for i := range v.NumField() {
			fill(t, v.Field(i), text, seed+int64(i))
		}
	case reflect.String:
		v.SetString(text)
	case reflect.Int64, reflect.Int:
		v.SetInt(seed)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fill(t, s.Index(i).Addr(), text, seed+int64(10*i))
		}
		v.Set(s)
	default:
		t.Fatalf("fill: no rule for %s", v.Type())
	}
}

func TestReservationAppendJSONMatchesEncodingJSON(t *testing.T) {
	texts := []string{"r_01J", "a<b>&c", `quote " and \ back`, "é ü 中", "line\u2028sep\u2029", "ctl\x01\x7f", "bad\xffutf8"}
	var cases []Reservation
	cases = append(cases, Reservation{}, Reservation{Lines: []ReservationLine{}})
	for i, text := range texts {
		var r Reservation
		fill(t, reflect.ValueOf(&r), text, int64(i*100+1))
		cases = append(cases, r)
	}
	// Only the required fields: every omitempty left out.
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases = append(cases, Reservation{ID: "r1", Key: "k1", Status: "pending", ExpiresAt: now, CreatedAt: now, UpdatedAt: now,
		Lines: []ReservationLine{{SKU: "s", Quantity: -3, Location: "main", Pool: "default"}}})
	for _, r := range cases {
		want, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.appendJSON(nil); string(got) != string(want) {
			t.Errorf("appendJSON:\n got %s\nwant %s", got, want)
		}
	}
}

func TestScanBody(t *testing.T) {
	names := map[string]bool{"sku": true, "lines": true, "quantity": true}
	for _, c := range []struct {
		body          string
		unknown       string
		notPlainField string
		malformed     bool
	}{
		{body: `{"lines":[{"sku":"a","quantity":1}]}`},
		{body: `{"lines":[{"SKU":"a"}]}`, unknown: "SKU"},
		{body: `{"lines":[{"\u0073ku":"a"}]}`},
		{body: `{"sku":"a\u0000b"}`, notPlainField: "sku"},
		{body: `{"lines":["ok","a\tb"]}`, notPlainField: "lines"},
		{body: `{"sku":"é\u0085"}`, notPlainField: "sku"},
		{body: `{"quantity":-1.5e+3,"sku":null,"lines":[true,false]}`},
		{body: `{"quantity":01}`, malformed: true},
		{body: `{"sku":"a"`, malformed: true},
		{body: `{"sku" "a"}`, malformed: true},
		{body: `{"sku":"a\x"}`, malformed: true},
	} {
		got := scanBody([]byte(c.body), names)
		if got.unknown != c.unknown || got.hasUnknown != (c.unknown != "") || got.notPlainField != c.notPlainField ||
			got.notPlain != (c.notPlainField != "") || got.malformed != c.malformed {
			t.Errorf("scanBody(%s) = %+v, want unknown %q, not plain under %q, malformed %v", c.body, got, c.unknown, c.notPlainField, c.malformed)
		}
	}
}
