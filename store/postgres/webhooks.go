package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// WebhookCreate implements store.Store.WebhookCreate. Under READ COMMITTED
// two transactions could both count below the bound, so the count and the
// insert run under an advisory lock.
func (s *Store) WebhookCreate(ctx context.Context, p store.WebhookCreateParams) error {
	webhooksMax := p.WebhooksMax
	if webhooksMax <= 0 {
		webhooksMax = stockd.WebhooksMax
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, queryAdvisoryXactLock, webhooksLockKey); err != nil {
			return fmt.Errorf("lock: %w", interpretError(err))
		}
		tag, err := tx.Exec(ctx, queryWebhookInsert, p.Webhook.ID, p.Webhook.URL, p.Webhook.EventTypes, p.Secret,
			p.Webhook.CreatedAt.UTC(), webhooksMax, p.Webhook.Cursor)
		if err != nil {
			return interpretError(err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%d webhooks exist: %w", webhooksMax, stockd.ErrLimitReached)
		}
		return storeAnswer(ctx, tx, p.Answer, p.Webhook)
	})
	if err != nil {
		return fmt.Errorf("postgres: create webhook %q: %w", p.Webhook.ID, err)
	}
	return nil
}

// WebhookGet implements store.Store.WebhookGet.
func (s *Store) WebhookGet(ctx context.Context, id string) (stockd.Webhook, error) {
	w, err := scanWebhook(s.pool.QueryRow(ctx, queryWebhookGet, id))
	if err != nil {
		return stockd.Webhook{}, fmt.Errorf("postgres: get webhook %q: %w", id, interpretError(err))
	}
	return w, nil
}

// WebhookList implements store.Store.WebhookList.
func (s *Store) WebhookList(ctx context.Context) ([]stockd.Webhook, error) {
	return list(ctx, s.pool, "list webhooks", scanWebhook, queryWebhookList, stockd.WebhooksMax)
}

// WebhookTargets implements store.Store.WebhookTargets.
func (s *Store) WebhookTargets(ctx context.Context) ([]store.WebhookTarget, error) {
	return list(ctx, s.pool, "list webhook targets", func(row scanner) (store.WebhookTarget, error) {
		var t store.WebhookTarget
		w, err := scanWebhookWith(row, &t.Secret)
		t.Webhook = w
		return t, err
	}, queryWebhookTargets, stockd.WebhooksMax)
}

// WebhookRedeliver implements store.Store.WebhookRedeliver.
func (s *Store) WebhookRedeliver(ctx context.Context, p store.WebhookRedeliverParams) (stockd.Webhook, error) {
	var w stockd.Webhook
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if w, err = scanWebhook(tx.QueryRow(ctx, queryWebhookRedeliver, p.ID, max(p.FromSeq-1, 0))); err != nil {
			return interpretError(err)
		}
		return storeAnswer(ctx, tx, p.Answer, w)
	})
	if err != nil {
		return stockd.Webhook{}, fmt.Errorf("postgres: redeliver webhook %q: %w", p.ID, err)
	}
	return w, nil
}

// WebhookDisable implements store.Store.WebhookDisable.
func (s *Store) WebhookDisable(ctx context.Context, p store.WebhookDisableParams) (stockd.Webhook, error) {
	var w stockd.Webhook
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if w, err = scanWebhook(tx.QueryRow(ctx, queryWebhookDisable, p.ID, p.At.UTC(), stockd.TruncateWebhookError(p.Reason))); err != nil {
			return interpretError(err)
		}
		return storeAnswer(ctx, tx, p.Answer, w)
	})
	if err != nil {
		return stockd.Webhook{}, fmt.Errorf("postgres: disable webhook %q: %w", p.ID, err)
	}
	return w, nil
}

// WebhookAttempt implements store.Store.WebhookAttempt.
func (s *Store) WebhookAttempt(ctx context.Context, p store.WebhookAttemptParams) (stockd.Webhook, error) {
	d := p.Delivery
	var w stockd.Webhook
	moved := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		errText := stockd.TruncateWebhookError(d.Error)
		if _, err := tx.Exec(ctx, queryWebhookDeliveryInsert, d.WebhookID, d.Seq, d.Attempt, d.Status, d.OK,
			errText, max(d.Duration.Microseconds(), 0), d.At.UTC()); err != nil {
			return interpretError(err)
		}
		if _, err := tx.Exec(ctx, queryWebhookDeliveryPrune, d.WebhookID, stockd.WebhookDeliveriesKept); err != nil {
			return interpretError(err)
		}
		var err error
		if d.OK {
			w, err = scanWebhook(tx.QueryRow(ctx, queryWebhookSucceeded, d.WebhookID, p.Generation, p.Cursor, d.Seq))
		} else {
			reason := stockd.TruncateWebhookError(fmt.Sprintf("%d consecutive failures, the last at seq %d: %s", p.FailuresMax, d.Seq, errText))
			w, err = scanWebhook(tx.QueryRow(ctx, queryWebhookFailed, d.WebhookID, p.Generation, p.Cursor,
				max(p.FailuresMax, 1), d.At.UTC(), reason))
		}
		if errors.Is(err, pgx.ErrNoRows) {
			moved = true
			return nil
		}
		return interpretError(err)
	})
	if err != nil {
		return stockd.Webhook{}, fmt.Errorf("postgres: record webhook attempt %q: %w", d.WebhookID, err)
	}
	if moved {
		return stockd.Webhook{}, fmt.Errorf("webhook %q: %w", d.WebhookID, store.ErrWebhookMoved)
	}
	return w, nil
}

// WebhookSkip implements store.Store.WebhookSkip.
func (s *Store) WebhookSkip(ctx context.Context, p store.WebhookSkipParams) error {
	tag, err := s.pool.Exec(ctx, queryWebhookSkip, p.ID, p.Generation, p.Cursor, p.To)
	if err != nil {
		return fmt.Errorf("postgres: skip webhook %q to %d: %w", p.ID, p.To, interpretError(err))
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("webhook %q: %w", p.ID, store.ErrWebhookMoved)
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
	return list(ctx, s.pool, "list webhook deliveries", scanWebhookDelivery, queryWebhookDeliveryList, p.ID, p.After, limit)
}

// storeAnswer writes the idempotency record answer renders, if any.
func storeAnswer(ctx context.Context, tx pgx.Tx, answer store.WebhookAnswer, w stockd.Webhook) error {
	if answer == nil {
		return nil
	}
	rec, err := answer(w)
	if err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, queryIdempotencyInsert, []string{rec.Key}, []string{rec.RequestHash}, [][]byte{rec.Result}, []time.Time{rec.CreatedAt.UTC()}); err != nil {
		return fmt.Errorf("store idempotency key: %w", interpretError(err))
	}
	return nil
}

func scanWebhook(row scanner) (stockd.Webhook, error) { return scanWebhookWith(row) }

// scanWebhookWith reads webhookColumns and then extra.
func scanWebhookWith(row scanner, extra ...any) (stockd.Webhook, error) {
	var w stockd.Webhook
	var disabledAt *time.Time
	dest := append([]any{&w.ID, &w.URL, &w.EventTypes, &w.CreatedAt, &disabledAt, &w.DisabledReason, &w.Failures, &w.Cursor, &w.Generation}, extra...)
	if err := row.Scan(dest...); err != nil {
		return stockd.Webhook{}, err
	}
	w.CreatedAt = w.CreatedAt.UTC()
	if disabledAt != nil {
		w.DisabledAt = disabledAt.UTC()
	}
	return w, nil
}

func scanWebhookDelivery(row scanner) (stockd.WebhookDelivery, error) {
	var d stockd.WebhookDelivery
	var durationMicros int64
	if err := row.Scan(&d.ID, &d.WebhookID, &d.Seq, &d.Attempt, &d.Status, &d.OK, &d.Error, &durationMicros, &d.At); err != nil {
		return stockd.WebhookDelivery{}, err
	}
	d.Duration = time.Duration(durationMicros) * time.Microsecond
	d.At = d.At.UTC()
	return d, nil
}
