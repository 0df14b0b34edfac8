package postgres

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

const (
	// queryDemandHistoryPut upserts a JSON array of rows in one statement.
	queryDemandHistoryPut = `
INSERT INTO demand_history (sku, date, quantity, imported_at)
SELECT r.sku, r.date::date, r.quantity, $2
FROM jsonb_to_recordset($1::jsonb) AS r (sku text, date text, quantity bigint)
ON CONFLICT (sku, date) DO UPDATE SET quantity = EXCLUDED.quantity, imported_at = EXCLUDED.imported_at`

	queryDemandHistoryList = `
SELECT sku, to_char(date, 'YYYY-MM-DD'), quantity FROM demand_history
WHERE sku = $1 AND date >= $2::date AND date <= $3::date
ORDER BY date`
)

// DemandHistoryPut implements store.Store.DemandHistoryPut.
func (s *Store) DemandHistoryPut(ctx context.Context, p store.DemandHistoryPutParams) error {
	if err := store.CheckDemandHistoryRows(p.Rows); err != nil {
		return err
	}
	rows, err := json.Marshal(p.Rows)
	if err != nil {
		return fmt.Errorf("postgres: encode demand history: %w", err)
	}
	if _, err := s.pool.Exec(ctx, queryDemandHistoryPut, string(rows), p.At.UTC()); err != nil {
		return fmt.Errorf("postgres: put demand history: %w", interpretError(err))
	}
	return nil
}

// DemandHistoryList implements store.Store.DemandHistoryList.
func (s *Store) DemandHistoryList(ctx context.Context, p store.DemandHistoryListParams) ([]stockd.DemandDay, error) {
	if err := store.CheckDemandHistorySpan(p.From, p.To); err != nil {
		return nil, err
	}
	return list(ctx, s.pool, fmt.Sprintf("demand history of %s", p.SKU), scanDemandDay, queryDemandHistoryList, p.SKU, p.From, p.To)
}

func scanDemandDay(row scanner) (stockd.DemandDay, error) {
	var d stockd.DemandDay
	err := row.Scan(&d.SKU, &d.Date, &d.Quantity)
	return d, err
}
