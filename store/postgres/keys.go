package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// AuditEventInsert appends one event to the audit trail.
func (s *Store) AuditEventInsert(ctx context.Context, e stockd.AuditEvent) error {
	_, err := s.pool.Exec(ctx, queryAuditEventInsert, e.At.UTC(), e.KeyID, e.Action, e.Resource, e.Outcome, e.Detail)
	if err != nil {
		return fmt.Errorf("postgres: insert audit event: %w", interpretError(err))
	}
	return nil
}

// AuditEventList returns events with ID > p.After in ID order, at most
// p.Limit (stockd.PageSizeDefault when zero, never above
// stockd.PageSizeMax).
func (s *Store) AuditEventList(ctx context.Context, p store.AuditEventListParams) ([]stockd.AuditEvent, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = stockd.PageSizeDefault
	}
	limit = min(limit, stockd.PageSizeMax)
	return list(ctx, s.pool, "list audit events", scanAuditEvent, queryAuditEventList, p.After, limit)
}

// KeyCount counts every key ever created, revoked keys included.
func (s *Store) KeyCount(ctx context.Context) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, queryKeyCount).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count api keys: %w", interpretError(err))
	}
	return n, nil
}

// KeyCreate stores a new key unless p.KeysMax keys exist already. Under
// READ COMMITTED two transactions could both count below the bound, so the
// count and the insert run under an advisory lock.
func (s *Store) KeyCreate(ctx context.Context, p store.KeyCreateParams) error {
	keysMax := p.KeysMax
	if keysMax <= 0 {
		keysMax = stockd.APIKeysMax
	}
	scopes := make([]string, len(p.Key.Scopes))
	for i, scope := range p.Key.Scopes {
		scopes[i] = string(scope)
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, queryAdvisoryXactLock, keysLockKey); err != nil {
			return fmt.Errorf("lock: %w", interpretError(err))
		}
		tag, err := tx.Exec(ctx, queryKeyInsert,
			p.Key.ID, p.Key.Name, p.Key.Prefix, p.Hash[:], scopes, p.Key.CreatedAt.UTC(), keysMax)
		if err != nil {
			return interpretError(err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%d keys exist: %w", keysMax, stockd.ErrLimitReached)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("postgres: insert api key %q: %w", p.Key.ID, err)
	}
	return nil
}

// KeyGetByHash returns the key whose secret hashes to hash, revoked or not.
func (s *Store) KeyGetByHash(ctx context.Context, hash stockd.APIKeyHash) (stockd.APIKey, error) {
	key, err := scanAPIKey(s.pool.QueryRow(ctx, queryKeyGetByHash, hash[:]))
	if err != nil {
		return stockd.APIKey{}, fmt.Errorf("postgres: get api key by hash: %w", interpretError(err))
	}
	return key, nil
}

// KeyList returns every key by creation time then id, at most
// stockd.APIKeysMax.
func (s *Store) KeyList(ctx context.Context) ([]stockd.APIKey, error) {
	return list(ctx, s.pool, "list api keys", scanAPIKey, queryKeyList, stockd.APIKeysMax)
}

// KeyRevoke marks a key revoked at p.At unless it is already, and returns
// it.
func (s *Store) KeyRevoke(ctx context.Context, p store.KeyRevokeParams) (stockd.APIKey, error) {
	key, err := scanAPIKey(s.pool.QueryRow(ctx, queryKeyRevoke, p.ID, p.At.UTC()))
	if err != nil {
		return stockd.APIKey{}, fmt.Errorf("postgres: revoke api key %q: %w", p.ID, interpretError(err))
	}
	return key, nil
}

// scanAPIKey reads apiKeyColumns.
func scanAPIKey(row scanner) (stockd.APIKey, error) {
	var key stockd.APIKey
	var scopes []string
	var revokedAt *time.Time
	if err := row.Scan(&key.ID, &key.Name, &key.Prefix, &scopes, &key.CreatedAt, &revokedAt); err != nil {
		return stockd.APIKey{}, err
	}
	key.Scopes = make([]stockd.Scope, len(scopes))
	for i, scope := range scopes {
		key.Scopes[i] = stockd.Scope(scope)
	}
	key.CreatedAt = key.CreatedAt.UTC()
	if revokedAt != nil {
		key.RevokedAt = revokedAt.UTC()
	}
	return key, nil
}

// scanAuditEvent reads auditEventColumns.
func scanAuditEvent(row scanner) (stockd.AuditEvent, error) {
	var e stockd.AuditEvent
	if err := row.Scan(&e.ID, &e.At, &e.KeyID, &e.Action, &e.Resource, &e.Outcome, &e.Detail); err != nil {
		return stockd.AuditEvent{}, err
	}
	e.At = e.At.UTC()
	return e, nil
}
