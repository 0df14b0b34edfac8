package storetest

import "testing"

// orderCases are the conformance cases of the order features.
func orderCases() []struct {
	name string
	fn   func(t *testing.T, h *Harness)
} {
	return nil
}
