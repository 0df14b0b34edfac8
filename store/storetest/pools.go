package storetest

import "testing"

// poolCases are the conformance cases of the pool features.
func poolCases() []struct {
	name string
	fn   func(t *testing.T, h *Harness)
} {
	return nil
}
