package postgres

import (
	"context"

	"github.com/stockd/stockd"
)

// queryDiscrepanciesLock locks the discrepancies a batch's corrections
// answer, in id order: a reconciliation run that refreshes or closes one
// waits for the batch, and two approvals of one discrepancy take turns.
const queryDiscrepanciesLock = `
SELECT ` + discrepancyColumns + `
FROM discrepancies WHERE id = ANY($1::int8[]) ORDER BY id FOR UPDATE`

// DiscrepanciesLock implements stockd.BatchReader.DiscrepanciesLock.
func (t *Tx) DiscrepanciesLock(ctx context.Context, ids []int64) ([]stockd.Discrepancy, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return list(ctx, t.tx, "lock discrepancies", scanDiscrepancy, queryDiscrepanciesLock, ids)
}
