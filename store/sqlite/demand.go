package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

const (
	// queryDemandHistoryPut upserts a JSON array of rows in one statement
	// (WHERE true: SQLite's parser needs it before ON CONFLICT after a
	// SELECT).
	queryDemandHistoryPut = `
INSERT INTO demand_history (sku, date, quantity, imported_at)
SELECT r.value ->> '$.sku', r.value ->> '$.date', r.value ->> '$.quantity', ?2
FROM json_each(?1) AS r WHERE true
ON CONFLICT (sku, date) DO UPDATE SET quantity = excluded.quantity, imported_at = excluded.imported_at`

	queryDemandHistoryList = `
SELECT sku, date, quantity FROM demand_history
WHERE sku = ? AND date >= ? AND date <= ?
ORDER BY date`
)

// DemandHistoryPut implements store.Store.DemandHistoryPut.
func (s *Store) DemandHistoryPut(ctx context.Context, p store.DemandHistoryPutParams) error {
	if err := store.CheckDemandHistoryRows(p.Rows); err != nil {
		return err
	}
	rows, err := json.Marshal(p.Rows)
	if err != nil {
		return fmt.Errorf("encode demand history: %w", err)
	}
	if _, err := s.writer.ExecContext(ctx, queryDemandHistoryPut, string(rows), unixMicros(p.At)); err != nil {
		return fmt.Errorf("put demand history: %w", interpretError(err))
	}
	return nil
}

// DemandHistoryList implements store.Store.DemandHistoryList.
func (s *Store) DemandHistoryList(ctx context.Context, p store.DemandHistoryListParams) ([]stockd.DemandDay, error) {
	if err := store.CheckDemandHistorySpan(p.From, p.To); err != nil {
		return nil, err
	}
	days, err := queryAll(ctx, s.reader, queryDemandHistoryList, scanDemandDay, p.SKU, p.From, p.To)
	if err != nil {
		return nil, fmt.Errorf("demand history of %s: %w", p.SKU, err)
	}
	return days, nil
}

func scanDemandDay(row rowScanner) (stockd.DemandDay, error) {
	var d stockd.DemandDay
	err := row.Scan(&d.SKU, &d.Date, &d.Quantity)
	return d, err
}
