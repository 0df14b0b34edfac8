package storetest_test

import (
	"testing"

	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store/storetest"
)

func TestConformance(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		storetest.Exercise(t, b.New)
	})
}
