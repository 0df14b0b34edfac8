package postgres

import (
	"context"
	"fmt"
	"time"
)

// HealthWrite rewrites the health probe's row in a transaction of its own.
func (s *Store) HealthWrite(ctx context.Context, at time.Time) error {
	if _, err := s.pool.Exec(ctx, queryHealthWrite, at.UTC()); err != nil {
		return fmt.Errorf("postgres: write health probe: %w", interpretError(err))
	}
	return nil
}
