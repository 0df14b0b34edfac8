package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Exceptions (stockd.Exception): body is the record, the columns beside it
// what the filters, the lock and the unique key read.
const (
	queryExceptionsLock = `
SELECT body FROM exceptions WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`

	queryExceptionsByKey = `
SELECT e.body
FROM exceptions e
JOIN unnest($1::text[], $2::text[]) AS k (kind, reservation_id) ON e.kind = k.kind AND e.reservation_id = k.reservation_id`

	// queryExceptionsInsert has no ON CONFLICT: one a concurrent batch
	// recorded for the same reservation is a unique violation, and this
	// batch is retried against it.
	queryExceptionsInsert = `
INSERT INTO exceptions (id, kind, reservation_id, status, body, created_at, updated_at)
SELECT e.id, e.kind, e.reservation_id, e.status, e.body::jsonb, e.at, e.at
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[])
    AS e (id, kind, reservation_id, status, body, at)`

	queryExceptionsUpdate = `
UPDATE exceptions x
SET status = u.status, body = u.body::jsonb, updated_at = u.at
FROM unnest($1::text[], $2::text[], $3::text[], $4::timestamptz[]) AS u (id, status, body, at)
WHERE x.id = u.id`

	queryExceptionGet = `SELECT body FROM exceptions WHERE id = $1`

	queryExceptionList = `
SELECT body FROM exceptions
WHERE id > $1 AND ($2 = '' OR status = $2) AND ($3 = '' OR kind = $3)
ORDER BY id
LIMIT $4`

	queryExceptionOpenCounts = `SELECT kind, count(*) FROM exceptions WHERE status = 'open' GROUP BY kind`
)

// ExceptionsLock reads and locks the exceptions with these ids in id
// order; unknown ids are left out.
func (t *Tx) ExceptionsLock(ctx context.Context, ids []string) ([]stockd.Exception, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	return list(ctx, t.tx, "lock exceptions", scanException, queryExceptionsLock, ids)
}

// ExceptionsByKey returns the exceptions recorded under these keys,
// unlocked.
func (t *Tx) ExceptionsByKey(ctx context.Context, keys []stockd.ExceptionKey) ([]stockd.Exception, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	kinds, ids := make([]string, len(keys)), make([]string, len(keys))
	for i, k := range keys {
		kinds[i], ids[i] = k.Kind, k.ReservationID
	}
	return list(ctx, t.tx, "read exceptions", scanException, queryExceptionsByKey, kinds, ids)
}

// queueExceptions inserts the batch's new exceptions, then writes the
// resolved ones (a batch may record and resolve the same one).
func queueExceptions(batch *pgx.Batch, created, updated []stockd.Exception) error {
	if n := len(created); n > 0 {
		ids, kinds, reservations, statuses, bodies, at := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
		for i := range created {
			e := &created[i]
			body, err := json.Marshal(e)
			if err != nil {
				return fmt.Errorf("postgres: encode exception %q: %w", e.ID, err)
			}
			ids[i], kinds[i], reservations[i], statuses[i], bodies[i], at[i] = e.ID, e.Kind, e.ReservationID, e.Status, string(body), e.CreatedAt
		}
		batch.Queue(queryExceptionsInsert, ids, kinds, reservations, statuses, bodies, at)
	}
	if n := len(updated); n > 0 {
		ids, statuses, bodies, at := make([]string, n), make([]string, n), make([]string, n), make([]time.Time, n)
		for i := range updated {
			e := &updated[i]
			body, err := json.Marshal(e)
			if err != nil {
				return fmt.Errorf("postgres: encode exception %q: %w", e.ID, err)
			}
			ids[i], statuses[i], bodies[i] = e.ID, e.Status, string(body)
			at[i] = e.CreatedAt
			if e.ResolvedAt != nil {
				at[i] = *e.ResolvedAt
			}
		}
		batch.Queue(queryExceptionsUpdate, ids, statuses, bodies, at).Exec(expectRows("update exceptions", n))
	}
	return nil
}

// ExceptionGet implements store.Store.ExceptionGet.
func (s *Store) ExceptionGet(ctx context.Context, id string) (stockd.Exception, error) {
	e, err := scanException(s.pool.QueryRow(ctx, queryExceptionGet, id))
	if err != nil {
		return e, fmt.Errorf("postgres: get exception %q: %w", id, interpretError(err))
	}
	return e, nil
}

// ExceptionList implements store.Store.ExceptionList.
func (s *Store) ExceptionList(ctx context.Context, p store.ExceptionListParams) ([]stockd.Exception, error) {
	return list(ctx, s.pool, "list exceptions", scanException, queryExceptionList, p.After, p.Status, p.Kind, store.PageLimit(p.Limit))
}

// ExceptionOpenCounts implements store.Store.ExceptionOpenCounts.
func (s *Store) ExceptionOpenCounts(ctx context.Context) (map[string]int64, error) {
	counts := map[string]int64{}
	err := each(ctx, s.pool, "count open exceptions", func(row scanner) (struct{}, error) {
		var kind string
		var n int64
		err := row.Scan(&kind, &n)
		counts[kind] = n
		return struct{}{}, err
	}, func(struct{}) error { return nil }, queryExceptionOpenCounts)
	if err != nil {
		return nil, err
	}
	return counts, nil
}

func scanException(row scanner) (stockd.Exception, error) {
	var e stockd.Exception
	var body []byte
	if err := row.Scan(&body); err != nil {
		return e, err
	}
	if err := json.Unmarshal(body, &e); err != nil {
		return e, fmt.Errorf("decode exception: %w", err)
	}
	return e, nil
}
