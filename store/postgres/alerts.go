package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// AlertOpenGet returns the open alert of sku.
func (s *Store) AlertOpenGet(ctx context.Context, sku string) (stockd.Alert, error) {
	a, err := scanAlert(s.pool.QueryRow(ctx, queryAlertOpenGet, sku))
	if err != nil {
		return stockd.Alert{}, fmt.Errorf("postgres: get open alert of %q: %w", sku, interpretError(err))
	}
	return a, nil
}

// AlertGet returns one alert.
func (s *Store) AlertGet(ctx context.Context, id int64) (stockd.Alert, error) {
	a, err := scanAlert(s.pool.QueryRow(ctx, queryAlertGet, id))
	if err != nil {
		return stockd.Alert{}, fmt.Errorf("postgres: get alert %d: %w", id, interpretError(err))
	}
	return a, nil
}

// AlertOpenCounts implements store.Store.AlertOpenCounts.
func (s *Store) AlertOpenCounts(ctx context.Context) (map[string]int64, error) {
	counts := map[string]int64{}
	err := each(ctx, s.pool, "count open alerts", func(row scanner) (struct{}, error) {
		var level string
		var n int64
		err := row.Scan(&level, &n)
		counts[level] = n
		return struct{}{}, err
	}, func(struct{}) error { return nil }, queryAlertOpenCounts)
	if err != nil {
		return nil, err
	}
	return counts, nil
}

// AlertList returns a page of alerts matching p's filters.
func (s *Store) AlertList(ctx context.Context, p store.AlertListParams) ([]stockd.Alert, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = stockd.PageSizeDefault
	}
	limit = min(limit, stockd.PageSizeMax)
	return list(ctx, s.pool, "list alerts", scanAlert, queryAlertList, p.After, p.Level, string(p.Status), p.SKU, limit)
}

// AlertNoticeList returns the notices of one business date.
func (s *Store) AlertNoticeList(ctx context.Context, businessDate, sku string) ([]stockd.AlertNotice, error) {
	return list(ctx, s.pool, "list alert notices", scanAlertNotice, queryAlertNoticeList, businessDate, sku, stockd.PageSizeMax)
}

// AlertWrite applies one decision in one transaction. The version
// condition of each UPDATE does what a row lock would: a write decided
// from an old version changes no row and rolls the whole decision back.
func (s *Store) AlertWrite(ctx context.Context, p store.AlertWriteParams) (store.AlertWriteResult, error) {
	var result store.AlertWriteResult
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		result = store.AlertWriteResult{}
		if p.Resolve != nil {
			if _, err := alertUpdate(ctx, tx, *p.Resolve); err != nil {
				return err
			}
		}
		if p.Save != nil {
			var err error
			if p.Save.ID == 0 {
				result.Saved, err = alertInsert(ctx, tx, *p.Save)
			} else {
				result.Saved, err = alertUpdate(ctx, tx, *p.Save)
			}
			if err != nil {
				return err
			}
		}
		for _, n := range p.Notices {
			if n.AlertID == 0 {
				n.AlertID = result.Saved.ID
			}
			tag, err := tx.Exec(ctx, queryAlertNoticeInsert,
				n.AlertID, n.SKU, n.Level, n.Tier, n.BusinessDate, n.Kind, n.At.UTC())
			if err != nil {
				return fmt.Errorf("insert alert notice: %w", interpretError(err))
			}
			if tag.RowsAffected() == 1 {
				result.Inserted = append(result.Inserted, n)
			}
		}
		return nil
	})
	if err != nil {
		return store.AlertWriteResult{}, fmt.Errorf("postgres: alert write: %w", err)
	}
	return result, nil
}

func alertInsert(ctx context.Context, q querier, a stockd.Alert) (stockd.Alert, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return a, fmt.Errorf("encode alert of %q: %w", a.SKU, err)
	}
	if err := q.QueryRow(ctx, queryAlertInsert, a.SKU, a.Level, string(a.Status), body).Scan(&a.ID); err != nil {
		err = interpretError(err)
		if errors.Is(err, store.ErrRetry) {
			// The unique open alert of the SKU: someone opened it first.
			return a, fmt.Errorf("open alert of %q: %w: %w", a.SKU, stockd.ErrAlertChanged, err)
		}
		return a, fmt.Errorf("insert alert of %q: %w", a.SKU, err)
	}
	a.Version = 1
	return a, nil
}

func alertUpdate(ctx context.Context, q querier, a stockd.Alert) (stockd.Alert, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return a, fmt.Errorf("encode alert %d: %w", a.ID, err)
	}
	tag, err := q.Exec(ctx, queryAlertUpdate, a.Level, string(a.Status), body, a.ID, a.Version)
	if err != nil {
		return a, fmt.Errorf("update alert %d: %w", a.ID, interpretError(err))
	}
	if tag.RowsAffected() == 0 {
		return a, fmt.Errorf("update alert %d at version %d: %w", a.ID, a.Version, stockd.ErrAlertChanged)
	}
	a.Version++
	return a, nil
}

// AlertAck acknowledges an alert under its row lock.
func (s *Store) AlertAck(ctx context.Context, p store.AlertAckParams) (stockd.Alert, error) {
	var out stockd.Alert
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		a, err := scanAlert(tx.QueryRow(ctx, queryAlertGetForUpdate, p.ID))
		if err != nil {
			return fmt.Errorf("get alert %d: %w", p.ID, interpretError(err))
		}
		acked, changed := a.Acknowledged(p.KeyID, p.At)
		if !changed {
			out = a
			return nil
		}
		out, err = alertUpdate(ctx, tx, acked)
		return err
	})
	if err != nil {
		return stockd.Alert{}, fmt.Errorf("postgres: alert ack: %w", err)
	}
	return out, nil
}

// AlertDeliveryInsert appends one attempt to the delivery log.
func (s *Store) AlertDeliveryInsert(ctx context.Context, d stockd.AlertDelivery) error {
	_, err := s.pool.Exec(ctx, queryAlertDeliveryInsert,
		d.AlertID, d.Sink, d.Attempt, d.At.UTC(), d.StatusCode, d.Delivered, d.Error)
	if err != nil {
		return fmt.Errorf("postgres: insert alert delivery: %w", interpretError(err))
	}
	return nil
}

// AlertDeliveryList returns the delivery log of one alert.
func (s *Store) AlertDeliveryList(ctx context.Context, alertID int64) ([]stockd.AlertDelivery, error) {
	return list(ctx, s.pool, "list alert deliveries", scanAlertDelivery, queryAlertDeliveryList, alertID, stockd.PageSizeMax)
}

// AlertCursorGet returns the worker's ledger cursor, 0 before it has one.
func (s *Store) AlertCursorGet(ctx context.Context) (int64, error) {
	var seq int64
	err := s.pool.QueryRow(ctx, queryAlertCursorGet).Scan(&seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: get alert cursor: %w", interpretError(err))
	}
	return seq, nil
}

// AlertCursorSet stores the worker's ledger cursor.
func (s *Store) AlertCursorSet(ctx context.Context, seq int64) error {
	if _, err := s.pool.Exec(ctx, queryAlertCursorSet, seq); err != nil {
		return fmt.Errorf("postgres: set alert cursor: %w", interpretError(err))
	}
	return nil
}

func scanAlert(row scanner) (stockd.Alert, error) {
	var (
		a       stockd.Alert
		id, ver int64
		body    []byte
	)
	if err := row.Scan(&id, &ver, &body); err != nil {
		return a, err
	}
	if err := json.Unmarshal(body, &a); err != nil {
		return a, fmt.Errorf("decode alert %d: %w", id, err)
	}
	a.ID, a.Version = id, ver
	return a, nil
}

func scanAlertNotice(row scanner) (stockd.AlertNotice, error) {
	var n stockd.AlertNotice
	err := row.Scan(&n.AlertID, &n.SKU, &n.Level, &n.Tier, &n.BusinessDate, &n.Kind, &n.At)
	n.At = n.At.UTC()
	return n, err
}

func scanAlertDelivery(row scanner) (stockd.AlertDelivery, error) {
	var d stockd.AlertDelivery
	err := row.Scan(&d.ID, &d.AlertID, &d.Sink, &d.Attempt, &d.At, &d.StatusCode, &d.Delivered, &d.Error)
	d.At = d.At.UTC()
	return d, err
}

// AlertDigestMark records the digest of one business date once.
func (s *Store) AlertDigestMark(ctx context.Context, businessDate string, at time.Time) (bool, error) {
	tag, err := s.pool.Exec(ctx, queryAlertDigestMark, businessDate, at.UTC())
	if err != nil {
		return false, fmt.Errorf("postgres: mark digest of %s: %w", businessDate, interpretError(err))
	}
	return tag.RowsAffected() == 1, nil
}

// SKUAlertLineSet implements store.Store.SKUAlertLineSet.
func (s *Store) SKUAlertLineSet(ctx context.Context, sku string, line int64) (bool, error) {
	tag, err := s.pool.Exec(ctx, querySKUAlertLineSet, sku, line)
	if err != nil {
		return false, fmt.Errorf("postgres: set alert line of %q: %w", sku, interpretError(err))
	}
	return tag.RowsAffected() == 1, nil
}
