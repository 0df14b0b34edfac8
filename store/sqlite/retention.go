package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// prunable is one answer IdempotencyPrune cuts down.
type prunable struct {
	key    string
	result []byte
}

// IdempotencyPrune implements store.Store.IdempotencyPrune on the writer
// connection: the one writer makes the read and the rewrite one step, and
// a batch waits for at most one prune transaction of p.Limit rows.
func (s *Store) IdempotencyPrune(ctx context.Context, p *store.IdempotencyPruneParams) (int, error) {
	if err := p.Check(); err != nil {
		return 0, fmt.Errorf("sqlite: %w", err)
	}
	pruned := 0
	err := s.webhookTx(ctx, "idempotency prune", func(tx *sql.Tx) error {
		claimed, err := queryAll(ctx, tx, queryIdempotencyPruneClaim, func(row rowScanner) (prunable, error) {
			var a prunable
			err := row.Scan(&a.key, &a.result)
			return a, err
		}, unixMicros(p.CreatedBefore), p.Limit)
		if err != nil {
			return fmt.Errorf("claim answers to prune: %w", err)
		}
		if len(claimed) == 0 {
			return nil
		}
		stmt, err := tx.PrepareContext(ctx, queryIdempotencyPrune)
		if err != nil {
			return fmt.Errorf("prepare prune: %w", interpretError(err))
		}
		defer stmt.Close()
		now := unixMicros(p.Now)
		for _, a := range claimed {
			outcome, err := stockd.PruneAnswer(a.result)
			if err != nil {
				return fmt.Errorf("prune answer of key %q: %w", a.key, err)
			}
			res, err := stmt.ExecContext(ctx, outcome, now, a.key)
			if err != nil {
				return fmt.Errorf("write pruned answer of key %q: %w", a.key, interpretError(err))
			}
			n, err := res.RowsAffected()
			if err != nil {
				return fmt.Errorf("write pruned answer of key %q: %w", a.key, interpretError(err))
			}
			pruned += int(n)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("sqlite: %w", err)
	}
	return pruned, nil
}
