package postgres

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
	return list(ctx, s.pool, fmt.Sprintf("sales of %s", sku), scanSalesBucket, queryLedgerSales, sku, from, to, location)
}

func scanSalesBucket(row scanner) (stockd.SalesBucket, error) {
	var b stockd.SalesBucket
	if err := row.Scan(&b.Start, &b.Quantity); err != nil {
		return b, err
	}
	b.Start = b.Start.UTC()
	return b, nil
}
