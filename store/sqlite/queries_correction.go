package sqlite

import (
	"context"
	"fmt"

	"github.com/stockd/stockd"
)

// queryDiscrepanciesLock reads the discrepancies a batch's corrections
// answer, in id order; the batch's transaction holds the write lock
// already, so no reconciliation run writes them meanwhile.
const queryDiscrepanciesLock = `
SELECT ` + discrepancyColumns + `
FROM discrepancies WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`

// DiscrepanciesLock implements stockd.BatchReader.DiscrepanciesLock.
func (t *tx) DiscrepanciesLock(ctx context.Context, ids []int64) ([]stockd.Discrepancy, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	idList, err := jsonArray(ids)
	if err != nil {
		return nil, err
	}
	all, err := queryAll(ctx, t.sqlTx, queryDiscrepanciesLock, scanDiscrepancy, idList)
	if err != nil {
		return nil, fmt.Errorf("read discrepancies: %w", err)
	}
	return all, nil
}
