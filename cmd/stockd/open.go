package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/postgres"
	"github.com/stockd/stockd/store/sqlite"
)

// openStore opens the database a URL names. It does not migrate.
func openStore(ctx context.Context, url string) (store.Store, error) {
	switch {
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		s, err := postgres.Open(ctx, url, postgres.Config{})
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		return s, nil
	case strings.HasPrefix(url, "sqlite://"):
		path, err := sqlite.ParseURL(url)
		if err != nil {
			return nil, err
		}
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("open sqlite %s: %w", path, err)
		}
		return s, nil
	}
	return nil, fmt.Errorf("database url %q: want postgres://… or sqlite://PATH", url)
}

// durabilityChecker is a store that can tell whether commits survive a crash.
type durabilityChecker interface {
	CheckDurability(ctx context.Context) error
}
