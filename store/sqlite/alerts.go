package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// AlertOpenGet returns the open alert of sku.
func (s *Store) AlertOpenGet(ctx context.Context, sku string) (stockd.Alert, error) {
	a, err := queryOne(ctx, s.reader, queryAlertOpenGet, scanAlert, sku)
	if err != nil {
		return stockd.Alert{}, fmt.Errorf("get open alert of %q: %w", sku, err)
	}
	return a, nil
}

// AlertGet returns one alert.
func (s *Store) AlertGet(ctx context.Context, id int64) (stockd.Alert, error) {
	a, err := queryOne(ctx, s.reader, queryAlertGet, scanAlert, id)
	if err != nil {
		return stockd.Alert{}, fmt.Errorf("get alert %d: %w", id, err)
	}
	return a, nil
}

// AlertList returns a page of alerts matching p's filters.
func (s *Store) AlertList(ctx context.Context, p store.AlertListParams) ([]stockd.Alert, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = stockd.PageSizeDefault
	}
	limit = min(limit, stockd.PageSizeMax)
	status := string(p.Status)
	alerts, err := queryAll(ctx, s.reader, queryAlertList, scanAlert,
		p.After, p.Level, p.Level, status, status, p.SKU, p.SKU, limit)
	if err != nil {
		return nil, fmt.Errorf("list alerts after %d: %w", p.After, err)
	}
	return alerts, nil
}

// AlertOpenCounts implements store.Store.AlertOpenCounts.
func (s *Store) AlertOpenCounts(ctx context.Context) (map[string]int64, error) {
	counts := map[string]int64{}
	err := queryEach(ctx, s.reader, queryAlertOpenCounts, func(row rowScanner) (struct{}, error) {
		var level string
		var n int64
		err := row.Scan(&level, &n)
		counts[level] = n
		return struct{}{}, err
	}, func(struct{}) error { return nil })
	if err != nil {
		return nil, fmt.Errorf("count open alerts: %w", err)
	}
	return counts, nil
}

// AlertNoticeList returns the notices of one business date.
func (s *Store) AlertNoticeList(ctx context.Context, businessDate, sku string) ([]stockd.AlertNotice, error) {
	notices, err := queryAll(ctx, s.reader, queryAlertNoticeList, scanAlertNotice, businessDate, sku, sku, stockd.PageSizeMax)
	if err != nil {
		return nil, fmt.Errorf("list alert notices of %s: %w", businessDate, err)
	}
	return notices, nil
}

// AlertWrite applies one decision in one transaction on the writer
// connection.
func (s *Store) AlertWrite(ctx context.Context, p store.AlertWriteParams) (store.AlertWriteResult, error) {
	var result store.AlertWriteResult
	sqlTx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return result, fmt.Errorf("begin alert write: %w", interpretError(err))
	}
	defer func() { _ = sqlTx.Rollback() }()
	if p.Resolve != nil {
		if _, err := alertUpdate(ctx, sqlTx, *p.Resolve); err != nil {
			return result, err
		}
	}
	if p.Save != nil {
		if p.Save.ID == 0 {
			result.Saved, err = alertInsert(ctx, sqlTx, *p.Save)
		} else {
			result.Saved, err = alertUpdate(ctx, sqlTx, *p.Save)
		}
		if err != nil {
			return result, err
		}
	}
	for _, n := range p.Notices {
		if n.AlertID == 0 {
			n.AlertID = result.Saved.ID
		}
		tag, err := sqlTx.ExecContext(ctx, queryAlertNoticeInsert,
			n.AlertID, n.SKU, n.Level, n.Tier, n.BusinessDate, n.Kind, unixMicros(n.At))
		if err != nil {
			return result, fmt.Errorf("insert alert notice: %w", interpretError(err))
		}
		if rows, err := tag.RowsAffected(); err != nil {
			return result, fmt.Errorf("insert alert notice: %w", err)
		} else if rows == 1 {
			result.Inserted = append(result.Inserted, n)
		}
	}
	if err := sqlTx.Commit(); err != nil {
		return store.AlertWriteResult{}, fmt.Errorf("commit alert write: %w", interpretError(err))
	}
	return result, nil
}

func alertInsert(ctx context.Context, sqlTx *sql.Tx, a stockd.Alert) (stockd.Alert, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return a, fmt.Errorf("encode alert of %q: %w", a.SKU, err)
	}
	err = sqlTx.QueryRowContext(ctx, queryAlertInsert, a.SKU, a.Level, string(a.Status), string(body)).Scan(&a.ID)
	if err != nil {
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

func alertUpdate(ctx context.Context, sqlTx *sql.Tx, a stockd.Alert) (stockd.Alert, error) {
	body, err := json.Marshal(a)
	if err != nil {
		return a, fmt.Errorf("encode alert %d: %w", a.ID, err)
	}
	tag, err := sqlTx.ExecContext(ctx, queryAlertUpdate, a.Level, string(a.Status), string(body), a.ID, a.Version)
	if err != nil {
		return a, fmt.Errorf("update alert %d: %w", a.ID, interpretError(err))
	}
	rows, err := tag.RowsAffected()
	if err != nil {
		return a, fmt.Errorf("update alert %d: %w", a.ID, err)
	}
	if rows == 0 {
		return a, fmt.Errorf("update alert %d at version %d: %w", a.ID, a.Version, stockd.ErrAlertChanged)
	}
	a.Version++
	return a, nil
}

// AlertAck acknowledges an alert under the writer's lock.
func (s *Store) AlertAck(ctx context.Context, p store.AlertAckParams) (stockd.Alert, error) {
	sqlTx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return stockd.Alert{}, fmt.Errorf("begin alert ack: %w", interpretError(err))
	}
	defer func() { _ = sqlTx.Rollback() }()
	a, err := queryOne(ctx, sqlTx, queryAlertGet, scanAlert, p.ID)
	if err != nil {
		return stockd.Alert{}, fmt.Errorf("get alert %d: %w", p.ID, err)
	}
	acked, changed := a.Acknowledged(p.KeyID, p.At)
	if !changed {
		return a, nil
	}
	if acked, err = alertUpdate(ctx, sqlTx, acked); err != nil {
		return stockd.Alert{}, err
	}
	if err := sqlTx.Commit(); err != nil {
		return stockd.Alert{}, fmt.Errorf("commit alert ack: %w", interpretError(err))
	}
	return acked, nil
}

// AlertDeliveryInsert appends one attempt to the delivery log.
func (s *Store) AlertDeliveryInsert(ctx context.Context, d stockd.AlertDelivery) error {
	_, err := s.writer.ExecContext(ctx, queryAlertDeliveryInsert,
		d.AlertID, d.Sink, d.Attempt, unixMicros(d.At), d.StatusCode, d.Delivered, d.Error)
	if err != nil {
		return fmt.Errorf("insert alert delivery: %w", interpretError(err))
	}
	return nil
}

// AlertDeliveryList returns the delivery log of one alert.
func (s *Store) AlertDeliveryList(ctx context.Context, alertID int64) ([]stockd.AlertDelivery, error) {
	deliveries, err := queryAll(ctx, s.reader, queryAlertDeliveryList, scanAlertDelivery, alertID, stockd.PageSizeMax)
	if err != nil {
		return nil, fmt.Errorf("list deliveries of alert %d: %w", alertID, err)
	}
	return deliveries, nil
}

// AlertCursorGet returns the worker's ledger cursor, 0 before it has one.
func (s *Store) AlertCursorGet(ctx context.Context) (int64, error) {
	var seq int64
	err := s.reader.QueryRowContext(ctx, queryAlertCursorGet).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get alert cursor: %w", interpretError(err))
	}
	return seq, nil
}

// AlertCursorSet stores the worker's ledger cursor.
func (s *Store) AlertCursorSet(ctx context.Context, seq int64) error {
	if _, err := s.writer.ExecContext(ctx, queryAlertCursorSet, seq); err != nil {
		return fmt.Errorf("set alert cursor: %w", interpretError(err))
	}
	return nil
}

func scanAlert(row rowScanner) (stockd.Alert, error) {
	var (
		a       stockd.Alert
		id, ver int64
		body    string
	)
	if err := row.Scan(&id, &ver, &body); err != nil {
		return a, err
	}
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		return a, fmt.Errorf("decode alert %d: %w", id, err)
	}
	a.ID, a.Version = id, ver
	return a, nil
}

func scanAlertNotice(row rowScanner) (stockd.AlertNotice, error) {
	var (
		n  stockd.AlertNotice
		at int64
	)
	err := row.Scan(&n.AlertID, &n.SKU, &n.Level, &n.Tier, &n.BusinessDate, &n.Kind, &at)
	n.At = timeFromUnixMicros(at)
	return n, err
}

func scanAlertDelivery(row rowScanner) (stockd.AlertDelivery, error) {
	var (
		d  stockd.AlertDelivery
		at int64
	)
	err := row.Scan(&d.ID, &d.AlertID, &d.Sink, &d.Attempt, &at, &d.StatusCode, &d.Delivered, &d.Error)
	d.At = timeFromUnixMicros(at)
	return d, err
}

// AlertDigestMark records the digest of one business date once.
func (s *Store) AlertDigestMark(ctx context.Context, businessDate string, at time.Time) (bool, error) {
	tag, err := s.writer.ExecContext(ctx, queryAlertDigestMark, businessDate, unixMicros(at))
	if err != nil {
		return false, fmt.Errorf("mark digest of %s: %w", businessDate, interpretError(err))
	}
	rows, err := tag.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("mark digest of %s: %w", businessDate, err)
	}
	return rows == 1, nil
}

// SKUAlertLineSet implements store.Store.SKUAlertLineSet.
func (s *Store) SKUAlertLineSet(ctx context.Context, sku string, line int64) (bool, error) {
	res, err := s.writer.ExecContext(ctx, querySKUAlertLineSet, line, sku, line)
	if err != nil {
		return false, fmt.Errorf("set alert line of %q: %w", sku, interpretError(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("set alert line of %q: %w", sku, err)
	}
	return n == 1, nil
}
