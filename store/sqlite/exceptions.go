package sqlite

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Exceptions (stockd.Exception): body is the record as JSON text, the
// columns beside it what the filters and the unique key read.
const (
	queryExceptionsLock = `
SELECT body FROM exceptions WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`

	// queryExceptionsByKey takes a JSON array of [kind, reservation_id].
	queryExceptionsByKey = `
SELECT body FROM exceptions
WHERE (kind, reservation_id) IN (SELECT k.value ->> '$[0]', k.value ->> '$[1]' FROM json_each(?) AS k)`

	queryExceptionInsert = `
INSERT INTO exceptions (id, kind, reservation_id, status, body, created_at, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?)`

	queryExceptionUpdate = `UPDATE exceptions SET status = ?, body = ?, updated_at = ? WHERE id = ?`

	queryExceptionGet = `SELECT body FROM exceptions WHERE id = ?`

	queryExceptionList = `
SELECT body FROM exceptions
WHERE id > ? AND (? = '' OR status = ?) AND (? = '' OR kind = ?)
ORDER BY id
LIMIT ?`

	queryExceptionOpenCounts = `SELECT kind, count(*) FROM exceptions WHERE status = 'open' GROUP BY kind`
)

// ExceptionsLock reads the exceptions with these ids in id order; the
// transaction holds the write lock already.
func (t *tx) ExceptionsLock(ctx context.Context, ids []string) ([]stockd.Exception, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	idList, err := jsonArray(ids)
	if err != nil {
		return nil, err
	}
	all, err := queryAll(ctx, t.sqlTx, queryExceptionsLock, scanException, idList)
	if err != nil {
		return nil, fmt.Errorf("read exceptions: %w", err)
	}
	return all, nil
}

// ExceptionsByKey returns the exceptions recorded under these keys.
func (t *tx) ExceptionsByKey(ctx context.Context, keys []stockd.ExceptionKey) ([]stockd.Exception, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	pairs := make([][2]string, len(keys))
	for i, k := range keys {
		pairs[i] = [2]string{k.Kind, k.ReservationID}
	}
	keyList, err := jsonArray(pairs)
	if err != nil {
		return nil, err
	}
	all, err := queryAll(ctx, t.sqlTx, queryExceptionsByKey, scanException, keyList)
	if err != nil {
		return nil, fmt.Errorf("read exceptions by key: %w", err)
	}
	return all, nil
}

// writeExceptions inserts the batch's new exceptions, then writes the
// resolved ones (a batch may record and resolve the same one).
func (t *tx) writeExceptions(ctx context.Context, created, updated []stockd.Exception) error {
	err := t.execEachRow(ctx, queryExceptionInsert, len(created), func(i int) ([]any, error) {
		e := &created[i]
		body, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode exception %q: %w", e.ID, err)
		}
		at := unixMicros(e.CreatedAt)
		return []any{e.ID, e.Kind, e.ReservationID, e.Status, string(body), at, at}, nil
	})
	if err != nil {
		return fmt.Errorf("insert exceptions: %w", err)
	}
	err = t.execEachRow(ctx, queryExceptionUpdate, len(updated), func(i int) ([]any, error) {
		e := &updated[i]
		body, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("encode exception %q: %w", e.ID, err)
		}
		at := e.CreatedAt
		if e.ResolvedAt != nil {
			at = *e.ResolvedAt
		}
		return []any{e.Status, string(body), unixMicros(at), e.ID}, nil
	})
	if err != nil {
		return fmt.Errorf("update exceptions: %w", err)
	}
	return nil
}

// ExceptionGet implements store.Store.ExceptionGet.
func (s *Store) ExceptionGet(ctx context.Context, id string) (stockd.Exception, error) {
	e, err := queryOne(ctx, s.reader, queryExceptionGet, scanException, id)
	if err != nil {
		return e, fmt.Errorf("get exception %q: %w", id, err)
	}
	return e, nil
}

// ExceptionList implements store.Store.ExceptionList.
func (s *Store) ExceptionList(ctx context.Context, p store.ExceptionListParams) ([]stockd.Exception, error) {
	all, err := queryAll(ctx, s.reader, queryExceptionList, scanException,
		p.After, p.Status, p.Status, p.Kind, p.Kind, store.PageLimit(p.Limit))
	if err != nil {
		return nil, fmt.Errorf("list exceptions: %w", err)
	}
	return all, nil
}

// ExceptionOpenCounts implements store.Store.ExceptionOpenCounts.
func (s *Store) ExceptionOpenCounts(ctx context.Context) (map[string]int64, error) {
	counts := map[string]int64{}
	err := queryEach(ctx, s.reader, queryExceptionOpenCounts, func(row rowScanner) (struct{}, error) {
		var kind string
		var n int64
		err := row.Scan(&kind, &n)
		counts[kind] = n
		return struct{}{}, err
	}, func(struct{}) error { return nil })
	if err != nil {
		return nil, fmt.Errorf("count open exceptions: %w", err)
	}
	return counts, nil
}

func scanException(row rowScanner) (stockd.Exception, error) {
	var e stockd.Exception
	var body string
	if err := row.Scan(&body); err != nil {
		return e, err
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil {
		return e, fmt.Errorf("decode exception: %w", err)
	}
	return e, nil
}
