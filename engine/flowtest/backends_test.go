package flowtest_test

import (
	"testing"

	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/internal/testdb"
)

// TestConformance runs every flow on both backends. The name is the one the
// flows ran under in store/storetest, so that test history stays comparable.
func TestConformance(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		flowtest.Exercise(t, b.New)
	})
}
