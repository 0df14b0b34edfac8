package storetest

import "testing"

// flowCases are the conformance cases of the flow features.
func flowCases() []struct {
	name string
	fn   func(t *testing.T, h *Harness)
} {
	return nil
}
