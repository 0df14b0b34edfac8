package relay

import (
	"strings"
	"testing"
)

func TestEscapeToken(t *testing.T) {
	tests := []struct{ in, want string }{
		{"reserve", "reserve"},
		{"sku-1_A:b", "sku-1_A:b"},
		{"a.b", "a%2Eb"},
		{"a*b>c", "a%2Ab%3Ec"},
		{"a b\tc\n", "a%20b%09c%0A"},
		{"100%", "100%25"},
		{"%2E", "%252E"},
		{"é", "%C3%A9"},
		{"\x7f\x00", "%7F%00"},
	}
	for _, tt := range tests {
		got := EscapeToken(tt.in)
		if got != tt.want {
			t.Errorf("EscapeToken(%q) = %q; want %q", tt.in, got, tt.want)
		}
		back, err := UnescapeToken(got)
		if err != nil || back != tt.in {
			t.Errorf("UnescapeToken(%q) = %q, %v; want %q", got, back, err, tt.in)
		}
	}
}

func TestUnescapeTokenRefuses(t *testing.T) {
	for _, bad := range []string{"%", "%2", "a%zz", "%G0"} {
		if got, err := UnescapeToken(bad); err == nil {
			t.Errorf("UnescapeToken(%q) = %q; want an error", bad, got)
		}
	}
}

func TestSubject(t *testing.T) {
	if got, want := Subject("prod", "reserve", "tea.green"), "stockd.prod.reserve.tea%2Egreen"; got != want {
		t.Fatalf("Subject = %q; want %q", got, want)
	}
	if got, want := Subject("prod", "discrepancy_opened", ""), "stockd.prod.discrepancy_opened.%"; got != want {
		t.Fatalf("Subject of no SKU = %q; want %q", got, want)
	}
	if got, want := EventID("prod", 42), "prod:42"; got != want {
		t.Fatalf("EventID = %q; want %q", got, want)
	}
}

func TestValidEnvironment(t *testing.T) {
	for env, want := range map[string]bool{
		"prod": true, "staging-eu_2": true, "": false, "a.b": false, "a*": false, "a b": false,
		"abcdefghijabcdefghijabcdefghij12": true, "abcdefghijabcdefghijabcdefghij123": false,
	} {
		if got := ValidEnvironment(env); got != want {
			t.Errorf("ValidEnvironment(%q) = %v; want %v", env, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for list, ok := range map[string]bool{
		"nats://127.0.0.1:4222": true, "127.0.0.1:4222": true, "tls://u:p@nats.example:4222": true,
		"nats://a:4222, nats://b:4222": true, "ws://a:8080": true,
		"http://a:4222": false, "nats://": false, "garbage url": false, "nats://[::1": false,
		"nats://a:4222,": false,
	} {
		if err := CheckURL(list); (err == nil) != ok {
			t.Errorf("CheckURL(%q) = %v; want ok %v", list, err, ok)
		}
	}
	if err := CheckURL("nats://user:secret@[::1"); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("CheckURL error %v repeats the password", err)
	}
}
