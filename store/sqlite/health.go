package sqlite

import (
	"context"
	"fmt"
	"time"
)

// HealthWrite rewrites the health probe's row on the writer connection,
// where every batch writes.
func (s *Store) HealthWrite(ctx context.Context, at time.Time) error {
	if _, err := s.writer.ExecContext(ctx, queryHealthWrite, unixMicros(at)); err != nil {
		return fmt.Errorf("write health probe: %w", interpretError(err))
	}
	return nil
}
