package main

import (
	"strings"
	"testing"
)

// TestReadmeLatePayment runs the README's late payment block against a
// real server: a late confirm re-reserved, another recorded as an
// exception and resolved.
func TestReadmeLatePayment(t *testing.T) {
	_, out := runReadmeBlock(t, "## A late payment, both ways")
	for _, want := range []string{`{"status":"confirmed","re_reserved":true}`, `{"status":409,"code":"reservation_expired"}`, "\n1\n",
		`{"status":"resolved","note":"refunded psp-982"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("the block's output lacks %q:\n%s", want, out)
		}
	}
}
