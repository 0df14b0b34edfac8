package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// IdempotencyPrune implements store.Store.IdempotencyPrune: one
// transaction claims the oldest unpruned answers with FOR UPDATE SKIP
// LOCKED, cuts each down to its outcome and writes them back.
func (s *Store) IdempotencyPrune(ctx context.Context, p *store.IdempotencyPruneParams) (int, error) {
	if err := p.Check(); err != nil {
		return 0, fmt.Errorf("postgres: %w", err)
	}
	pruned := 0
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		keys := make([]string, 0, p.Limit)
		results := make([][]byte, 0, p.Limit)
		rows, err := tx.Query(ctx, queryIdempotencyPruneClaim, p.CreatedBefore.UTC(), p.Limit)
		if err != nil {
			return fmt.Errorf("claim answers to prune: %w", interpretError(err))
		}
		for rows.Next() {
			var key string
			var result []byte
			if err := rows.Scan(&key, &result); err != nil {
				rows.Close()
				return fmt.Errorf("read answer to prune: %w", interpretError(err))
			}
			outcome, err := stockd.PruneAnswer(result)
			if err != nil {
				rows.Close()
				return fmt.Errorf("prune answer of key %q: %w", key, err)
			}
			keys, results = append(keys, key), append(results, outcome)
		}
		if err := rows.Err(); err != nil {
			return fmt.Errorf("claim answers to prune: %w", interpretError(err))
		}
		if len(keys) == 0 {
			return nil
		}
		tag, err := tx.Exec(ctx, queryIdempotencyPrune, keys, results, p.Now.UTC())
		if err != nil {
			return fmt.Errorf("write pruned answers: %w", interpretError(err))
		}
		pruned = int(tag.RowsAffected())
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("postgres: idempotency prune: %w", err)
	}
	return pruned, nil
}
