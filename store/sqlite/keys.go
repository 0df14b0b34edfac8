package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// AuditEventInsert appends one event to the audit trail.
func (s *Store) AuditEventInsert(ctx context.Context, e stockd.AuditEvent) error {
	_, err := s.writer.ExecContext(ctx, queryAuditEventInsert,
		unixMicros(e.At), e.KeyID, e.Action, e.Resource, e.Outcome, e.Detail)
	if err != nil {
		return fmt.Errorf("insert audit event: %w", interpretError(err))
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
	events, err := queryAll(ctx, s.reader, queryAuditEventList, scanAuditEvent, p.After, limit)
	if err != nil {
		return nil, fmt.Errorf("list audit events after %d: %w", p.After, err)
	}
	return events, nil
}

// KeyCount counts every key ever created, revoked keys included.
func (s *Store) KeyCount(ctx context.Context) (int, error) {
	var n int
	if err := s.reader.QueryRowContext(ctx, queryKeyCount).Scan(&n); err != nil {
		return 0, fmt.Errorf("count api keys: %w", interpretError(err))
	}
	return n, nil
}

// KeyCreate stores a new key unless p.KeysMax keys exist already. The one
// writer connection runs the count and the insert as one statement, so
// concurrent creations cannot pass the bound together.
func (s *Store) KeyCreate(ctx context.Context, p store.KeyCreateParams) error {
	keysMax := p.KeysMax
	if keysMax <= 0 {
		keysMax = stockd.APIKeysMax
	}
	scopes, err := json.Marshal(p.Key.Scopes)
	if err != nil {
		return fmt.Errorf("encode scopes of api key %q: %w", p.Key.ID, err)
	}
	// scopes is bound as a string: a []byte would be a BLOB, which the
	// STRICT TEXT column refuses.
	result, err := s.writer.ExecContext(ctx, queryKeyInsert,
		p.Key.ID, p.Key.Name, p.Key.Prefix, p.Hash[:], string(scopes), unixMicros(p.Key.CreatedAt), keysMax)
	if err != nil {
		return fmt.Errorf("insert api key %q: %w", p.Key.ID, interpretError(err))
	}
	inserted, err := result.RowsAffected()
	if err != nil {
		return fmt.Errorf("insert api key %q: rows affected: %w", p.Key.ID, err)
	}
	if inserted == 0 {
		return fmt.Errorf("insert api key %q: %d keys exist: %w", p.Key.ID, keysMax, stockd.ErrLimitReached)
	}
	return nil
}

// KeyGetByHash returns the key whose secret hashes to hash, revoked or not.
func (s *Store) KeyGetByHash(ctx context.Context, hash stockd.APIKeyHash) (stockd.APIKey, error) {
	key, err := queryOne(ctx, s.reader, queryKeyGetByHash, scanAPIKey, hash[:])
	if err != nil {
		return stockd.APIKey{}, fmt.Errorf("get api key by hash: %w", err)
	}
	return key, nil
}

// KeyList returns every key by creation time then id, at most
// stockd.APIKeysMax.
func (s *Store) KeyList(ctx context.Context) ([]stockd.APIKey, error) {
	keys, err := queryAll(ctx, s.reader, queryKeyList, scanAPIKey, stockd.APIKeysMax)
	if err != nil {
		return nil, fmt.Errorf("list api keys: %w", err)
	}
	return keys, nil
}

// KeyRevoke marks a key revoked at p.At unless it is already, and returns
// it.
func (s *Store) KeyRevoke(ctx context.Context, p store.KeyRevokeParams) (stockd.APIKey, error) {
	key, err := queryOne(ctx, s.writer, queryKeyRevoke, scanAPIKey, unixMicros(p.At), p.ID)
	if err != nil {
		return stockd.APIKey{}, fmt.Errorf("revoke api key %q: %w", p.ID, err)
	}
	return key, nil
}

// scanAPIKey reads apiKeyColumns.
func scanAPIKey(row rowScanner) (stockd.APIKey, error) {
	var key stockd.APIKey
	var scopes string
	var createdAtMicros int64
	var revokedAtMicros sql.NullInt64
	if err := row.Scan(&key.ID, &key.Name, &key.Prefix, &scopes, &createdAtMicros, &revokedAtMicros); err != nil {
		return stockd.APIKey{}, err
	}
	if err := json.Unmarshal([]byte(scopes), &key.Scopes); err != nil {
		return stockd.APIKey{}, fmt.Errorf("decode scopes of api key %q: %w", key.ID, err)
	}
	key.CreatedAt = timeFromUnixMicros(createdAtMicros)
	if revokedAtMicros.Valid {
		key.RevokedAt = timeFromUnixMicros(revokedAtMicros.Int64)
	}
	return key, nil
}

// scanAuditEvent reads auditEventColumns.
func scanAuditEvent(row rowScanner) (stockd.AuditEvent, error) {
	var e stockd.AuditEvent
	var atMicros int64
	if err := row.Scan(&e.ID, &atMicros, &e.KeyID, &e.Action, &e.Resource, &e.Outcome, &e.Detail); err != nil {
		return stockd.AuditEvent{}, err
	}
	e.At = timeFromUnixMicros(atMicros)
	return e, nil
}
