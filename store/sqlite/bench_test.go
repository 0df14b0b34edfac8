package sqlite

import (
	"testing"

	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storetest"
)

func BenchmarkBatchReserve(b *testing.B) {
	storetest.BenchmarkBatchReserve(b, func(tb testing.TB) store.Store { return newTestStore(tb) })
}
