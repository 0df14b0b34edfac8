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

// WebhookCreate implements store.Store.WebhookCreate. The one writer
// connection makes the count and the insert one atomic step.
func (s *Store) WebhookCreate(ctx context.Context, p store.WebhookCreateParams) error {
	webhooksMax := p.WebhooksMax
	if webhooksMax <= 0 {
		webhooksMax = stockd.WebhooksMax
	}
	types, err := json.Marshal(p.Webhook.EventTypes)
	if err != nil {
		return fmt.Errorf("encode event types of webhook %q: %w", p.Webhook.ID, err)
	}
	return s.webhookTx(ctx, "create webhook "+p.Webhook.ID, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, queryWebhookInsert, p.Webhook.ID, p.Webhook.URL, string(types), p.Secret,
			unixMicros(p.Webhook.CreatedAt), webhooksMax, p.Webhook.Cursor)
		if err != nil {
			return interpretError(err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errors.Join(err, fmt.Errorf("%d webhooks exist: %w", webhooksMax, stockd.ErrLimitReached))
		}
		return storeAnswer(ctx, tx, p.Answer, p.Webhook)
	})
}

// WebhookGet implements store.Store.WebhookGet.
func (s *Store) WebhookGet(ctx context.Context, id string) (stockd.Webhook, error) {
	w, err := queryOne(ctx, s.reader, queryWebhookGet, scanWebhook, id)
	if err != nil {
		return stockd.Webhook{}, fmt.Errorf("get webhook %q: %w", id, err)
	}
	return w, nil
}

// WebhookList implements store.Store.WebhookList.
func (s *Store) WebhookList(ctx context.Context) ([]stockd.Webhook, error) {
	list, err := queryAll(ctx, s.reader, queryWebhookList, scanWebhook, stockd.WebhooksMax)
	if err != nil {
		return nil, fmt.Errorf("list webhooks: %w", err)
	}
	return list, nil
}

// WebhookTargets implements store.Store.WebhookTargets.
func (s *Store) WebhookTargets(ctx context.Context) ([]store.WebhookTarget, error) {
	list, err := queryAll(ctx, s.reader, queryWebhookTargets, func(row rowScanner) (store.WebhookTarget, error) {
		var t store.WebhookTarget
		w, err := scanWebhookWith(row, &t.Secret)
		t.Webhook = w
		return t, err
	}, stockd.WebhooksMax)
	if err != nil {
		return nil, fmt.Errorf("list webhook targets: %w", err)
	}
	return list, nil
}

// WebhookRedeliver implements store.Store.WebhookRedeliver.
func (s *Store) WebhookRedeliver(ctx context.Context, p store.WebhookRedeliverParams) (stockd.Webhook, error) {
	var w stockd.Webhook
	err := s.webhookTx(ctx, "redeliver webhook "+p.ID, func(tx *sql.Tx) error {
		var err error
		if w, err = queryOne(ctx, tx, queryWebhookRedeliver, scanWebhook, p.ID, max(p.FromSeq-1, 0)); err != nil {
			return err
		}
		return storeAnswer(ctx, tx, p.Answer, w)
	})
	return w, err
}

// WebhookDisable implements store.Store.WebhookDisable.
func (s *Store) WebhookDisable(ctx context.Context, p store.WebhookDisableParams) (stockd.Webhook, error) {
	var w stockd.Webhook
	err := s.webhookTx(ctx, "disable webhook "+p.ID, func(tx *sql.Tx) error {
		var err error
		if w, err = queryOne(ctx, tx, queryWebhookDisable, scanWebhook, p.ID, unixMicros(p.At), stockd.TruncateWebhookError(p.Reason)); err != nil {
			return err
		}
		return storeAnswer(ctx, tx, p.Answer, w)
	})
	return w, err
}

// WebhookAttempt implements store.Store.WebhookAttempt.
func (s *Store) WebhookAttempt(ctx context.Context, p store.WebhookAttemptParams) (stockd.Webhook, error) {
	d := p.Delivery
	var w stockd.Webhook
	moved := false
	err := s.webhookTx(ctx, "record webhook attempt "+d.WebhookID, func(tx *sql.Tx) error {
		ok := 0
		if d.OK {
			ok = 1
		}
		errText := stockd.TruncateWebhookError(d.Error)
		if _, err := tx.ExecContext(ctx, queryWebhookDeliveryInsert, d.WebhookID, d.Seq, d.Attempt, d.Status, ok,
			errText, max(d.Duration.Microseconds(), 0), unixMicros(d.At)); err != nil {
			return interpretError(err)
		}
		if _, err := tx.ExecContext(ctx, queryWebhookDeliveryPrune, d.WebhookID, stockd.WebhookDeliveriesKept); err != nil {
			return interpretError(err)
		}
		var err error
		if d.OK {
			w, err = queryOne(ctx, tx, queryWebhookSucceeded, scanWebhook, d.WebhookID, p.Generation, p.Cursor, d.Seq)
		} else {
			reason := stockd.TruncateWebhookError(fmt.Sprintf("%d consecutive failures, the last at seq %d: %s", p.FailuresMax, d.Seq, errText))
			w, err = queryOne(ctx, tx, queryWebhookFailed, scanWebhook, d.WebhookID, p.Generation, p.Cursor,
				max(p.FailuresMax, 1), unixMicros(d.At), reason)
		}
		if errors.Is(err, stockd.ErrNotFound) {
			moved = true
			return nil
		}
		return err
	})
	if err == nil && moved {
		err = fmt.Errorf("webhook %q: %w", d.WebhookID, store.ErrWebhookMoved)
	}
	return w, err
}

// WebhookSkip implements store.Store.WebhookSkip.
func (s *Store) WebhookSkip(ctx context.Context, p store.WebhookSkipParams) error {
	res, err := s.writer.ExecContext(ctx, queryWebhookSkip, p.ID, p.Generation, p.Cursor, p.To)
	if err != nil {
		return fmt.Errorf("skip webhook %q to %d: %w", p.ID, p.To, interpretError(err))
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return errors.Join(err, fmt.Errorf("webhook %q: %w", p.ID, store.ErrWebhookMoved))
	}
	return nil
}

// WebhookDeliveryList implements store.Store.WebhookDeliveryList.
func (s *Store) WebhookDeliveryList(ctx context.Context, p store.WebhookDeliveryListParams) ([]stockd.WebhookDelivery, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = stockd.PageSizeDefault
	}
	limit = min(limit, stockd.PageSizeMax)
	list, err := queryAll(ctx, s.reader, queryWebhookDeliveryList, scanWebhookDelivery, p.ID, p.After, limit)
	if err != nil {
		return nil, fmt.Errorf("list deliveries of webhook %q: %w", p.ID, err)
	}
	return list, nil
}

// webhookTx runs fn in a transaction of the writer connection.
func (s *Store) webhookTx(ctx context.Context, what string, fn func(*sql.Tx) error) error {
	tx, err := s.writer.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", what, interpretError(err))
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", what, interpretError(err))
	}
	return nil
}

// storeAnswer writes the idempotency record answer renders, if any.
func storeAnswer(ctx context.Context, tx *sql.Tx, answer store.WebhookAnswer, w stockd.Webhook) error {
	if answer == nil {
		return nil
	}
	rec, err := answer(w)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, queryIdempotencyInsert, rec.Key, rec.RequestHash, rec.Result, unixMicros(rec.CreatedAt)); err != nil {
		return fmt.Errorf("store idempotency key: %w", interpretError(err))
	}
	return nil
}

func scanWebhook(row rowScanner) (stockd.Webhook, error) { return scanWebhookWith(row) }

// scanWebhookWith reads webhookColumns and then extra.
func scanWebhookWith(row rowScanner, extra ...any) (stockd.Webhook, error) {
	var w stockd.Webhook
	var types string
	var createdAt int64
	var disabledAt sql.NullInt64
	dest := append([]any{&w.ID, &w.URL, &types, &createdAt, &disabledAt, &w.DisabledReason, &w.Failures, &w.Cursor, &w.Generation}, extra...)
	if err := row.Scan(dest...); err != nil {
		return stockd.Webhook{}, err
	}
	if err := json.Unmarshal([]byte(types), &w.EventTypes); err != nil {
		return stockd.Webhook{}, fmt.Errorf("decode event types of webhook %q: %w", w.ID, err)
	}
	w.CreatedAt = timeFromUnixMicros(createdAt)
	if disabledAt.Valid {
		w.DisabledAt = timeFromUnixMicros(disabledAt.Int64)
	}
	return w, nil
}

func scanWebhookDelivery(row rowScanner) (stockd.WebhookDelivery, error) {
	var d stockd.WebhookDelivery
	var ok int
	var durationMicros, at int64
	if err := row.Scan(&d.ID, &d.WebhookID, &d.Seq, &d.Attempt, &d.Status, &ok, &d.Error, &durationMicros, &at); err != nil {
		return stockd.WebhookDelivery{}, err
	}
	d.OK = ok == 1
	d.Duration = time.Duration(durationMicros) * time.Microsecond
	d.At = timeFromUnixMicros(at)
	return d, nil
}
