package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// LedgerSales implements store.Store.LedgerSales, served by the partial
// index ledger_sales.
func (s *Store) LedgerSales(ctx context.Context, sku, location string, from, to time.Time) ([]stockd.SalesBucket, error) {
	if err := store.CheckSalesSpan(from, to); err != nil {
		return nil, err
	}
	buckets, err := queryAll(ctx, s.reader, queryLedgerSales, scanSalesBucket,
		stockd.SalesBucketWidth.Microseconds(), sku, unixMicros(from), unixMicros(to), location)
	if err != nil {
		return nil, fmt.Errorf("sales of %s: %w", sku, err)
	}
	return buckets, nil
}

func scanSalesBucket(row rowScanner) (stockd.SalesBucket, error) {
	var startMicros int64
	var b stockd.SalesBucket
	if err := row.Scan(&startMicros, &b.Quantity); err != nil {
		return b, err
	}
	b.Start = timeFromUnixMicros(startMicros)
	return b, nil
}
