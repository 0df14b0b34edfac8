package storetest

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// newWebhook makes an endpoint of the types given, stored under key when
// key is not empty.
func newWebhook(t *testing.T, s store.Store, key string, types ...string) (stockd.Webhook, string) {
	t.Helper()
	w, secret, err := stockd.NewWebhook("https://hooks.example.com/stockd", types, time.Now())
	if err != nil {
		t.Fatalf("NewWebhook: %v", err)
	}
	p := store.WebhookCreateParams{Webhook: w, Secret: secret}
	if key != "" {
		p.Answer = answerUnder(key)
	}
	if err := s.WebhookCreate(ctx, p); err != nil {
		t.Fatalf("WebhookCreate: %v", err)
	}
	return w, secret
}

// answerUnder stores the endpoint's id as the answer under key.
func answerUnder(key string) store.WebhookAnswer {
	return func(w stockd.Webhook) (stockd.IdempotencyRecord, error) {
		return stockd.IdempotencyRecord{Key: key, RequestHash: "h", Result: []byte(`{"object":"` + w.ID + `"}`), CreatedAt: time.Now()}, nil
	}
}

// testWebhookLifecycle: create stores the endpoint with its idempotency
// record, reads never carry the secret and targets do; a key used twice
// stores nothing the second time; failures count and disable at the
// bound; redelivery moves the cursor and enables; disabling keeps the
// first reason.
func testWebhookLifecycle(t *testing.T, h *flowtest.Harness) {
	s := h.Store
	w, secret := newWebhook(t, s, "create-1", stockd.BusinessReserve, stockd.BusinessReceipt)
	got, err := s.WebhookGet(ctx, w.ID)
	if err != nil || got.URL != w.URL || fmt.Sprint(got.EventTypes) != "[receipt reserve]" || got.Cursor != 0 || got.Disabled() || !got.CreatedAt.Equal(w.CreatedAt) {
		t.Fatalf("WebhookGet = %+v, %v; want %+v", got, err, w)
	}
	if _, err := s.WebhookGet(ctx, "wh_missing"); !isNotFound(err) {
		t.Fatalf("WebhookGet of an unknown id: %v; want ErrNotFound", err)
	}
	recs, err := s.IdempotencyGet(ctx, []string{"create-1"})
	if err != nil || len(recs) != 1 || string(recs[0].Result) != `{"object":"`+w.ID+`"}` {
		t.Fatalf("idempotency record = %v, %v", recs, err)
	}
	again, _, _ := stockd.NewWebhook("https://other.example.com/", []string{stockd.BusinessReserve}, time.Now())
	err = s.WebhookCreate(ctx, store.WebhookCreateParams{Webhook: again, Secret: "x", Answer: answerUnder("create-1")})
	if !errors.Is(err, store.ErrRetry) {
		t.Fatalf("create under a stored key: %v; want ErrRetry", err)
	}
	if list, err := s.WebhookList(ctx); err != nil || len(list) != 1 {
		t.Fatalf("WebhookList after a refused create = %d, %v; want 1 (nothing stored)", len(list), err)
	}
	targets, err := s.WebhookTargets(ctx)
	if err != nil || len(targets) != 1 || targets[0].Secret != secret || targets[0].Webhook.ID != w.ID {
		t.Fatalf("WebhookTargets = %+v, %v", targets, err)
	}

	attempt := func(w stockd.Webhook, seq int64, ok bool) (stockd.Webhook, error) {
		return s.WebhookAttempt(ctx, store.WebhookAttemptParams{
			Delivery:   stockd.WebhookDelivery{WebhookID: w.ID, Seq: seq, Attempt: w.Failures + 1, Status: 500, OK: ok, Error: "boom", Duration: 3 * time.Millisecond, At: time.Now()},
			Generation: w.Generation, Cursor: w.Cursor, FailuresMax: 3,
		})
	}
	w, err = attempt(got, 4, true)
	if err != nil || w.Cursor != 4 || w.Failures != 0 {
		t.Fatalf("success = %+v, %v; want cursor 4", w, err)
	}
	if _, err := attempt(got, 5, true); !errors.Is(err, store.ErrWebhookMoved) {
		t.Fatalf("attempt from a stale cursor: %v; want ErrWebhookMoved", err)
	}
	for i := 1; i <= 3; i++ {
		if w, err = attempt(w, 7, false); err != nil || w.Failures != i || w.Cursor != 4 {
			t.Fatalf("failure %d = %+v, %v", i, w, err)
		}
	}
	if !w.Disabled() || w.DisabledReason == "" {
		t.Fatalf("after 3 failures = %+v; want disabled with a reason", w)
	}
	if targets, _ := s.WebhookTargets(ctx); len(targets) != 0 {
		t.Fatalf("targets of a disabled endpoint = %d; want 0", len(targets))
	}
	if _, err := attempt(w, 7, false); !errors.Is(err, store.ErrWebhookMoved) {
		t.Fatalf("failure on a disabled endpoint: %v; want ErrWebhookMoved", err)
	}
	red, err := s.WebhookRedeliver(ctx, store.WebhookRedeliverParams{ID: w.ID, FromSeq: 2, Answer: answerUnder("redeliver-1")})
	if err != nil || red.Cursor != 1 || red.Disabled() || red.Failures != 0 || red.Generation == w.Generation {
		t.Fatalf("redeliver from 2 = %+v, %v; want cursor 1, enabled", red, err)
	}
	if _, err := attempt(w, 7, true); !errors.Is(err, store.ErrWebhookMoved) {
		t.Fatalf("attempt from before a redelivery: %v; want ErrWebhookMoved", err)
	}
	if err := s.WebhookSkip(ctx, store.WebhookSkipParams{ID: w.ID, Generation: red.Generation, Cursor: red.Cursor, To: 9}); err != nil {
		t.Fatalf("skip: %v", err)
	}
	if err := s.WebhookSkip(ctx, store.WebhookSkipParams{ID: w.ID, Generation: red.Generation, Cursor: red.Cursor, To: 9}); !errors.Is(err, store.ErrWebhookMoved) {
		t.Fatalf("skip from a stale cursor: %v; want ErrWebhookMoved", err)
	}
	at := time.Now().UTC().Truncate(time.Microsecond)
	off, err := s.WebhookDisable(ctx, store.WebhookDisableParams{ID: w.ID, At: at, Reason: "first"})
	if err != nil || !off.DisabledAt.Equal(at) || off.DisabledReason != "first" || off.Cursor != 9 {
		t.Fatalf("disable = %+v, %v", off, err)
	}
	off, err = s.WebhookDisable(ctx, store.WebhookDisableParams{ID: w.ID, At: at.Add(time.Hour), Reason: "second"})
	if err != nil || !off.DisabledAt.Equal(at) || off.DisabledReason != "first" {
		t.Fatalf("disable again = %+v, %v; want the first time and reason", off, err)
	}
	if _, err := s.WebhookDisable(ctx, store.WebhookDisableParams{ID: "wh_missing", At: at}); !isNotFound(err) {
		t.Fatalf("disable of an unknown id: %v; want ErrNotFound", err)
	}
	if _, err := s.WebhookRedeliver(ctx, store.WebhookRedeliverParams{ID: "wh_missing", FromSeq: 1}); !isNotFound(err) {
		t.Fatalf("redeliver of an unknown id: %v; want ErrNotFound", err)
	}
	log, err := s.WebhookDeliveryList(ctx, store.WebhookDeliveryListParams{ID: w.ID})
	if err != nil || len(log) != 7 || log[0].Seq != 4 || !log[0].OK || log[1].Seq != 5 || log[2].OK || log[2].Attempt != 1 || log[3].Attempt != 2 || log[0].Duration != 3*time.Millisecond {
		t.Fatalf("delivery log = %+v, %v; want the 7 attempts in order, stale ones included", log, err)
	}
	page, err := s.WebhookDeliveryList(ctx, store.WebhookDeliveryListParams{ID: w.ID, After: log[5].ID, Limit: 1})
	if err != nil || len(page) != 1 || page[0].ID != log[6].ID {
		t.Fatalf("delivery page after %d = %+v, %v", log[5].ID, page, err)
	}
}

// testWebhookBounds: the count of endpoints and the delivery log per
// endpoint are bounded.
func testWebhookBounds(t *testing.T, h *flowtest.Harness) {
	s := h.Store
	w, _ := newWebhook(t, s, "", stockd.BusinessReserve)
	newWebhook(t, s, "", stockd.BusinessReserve)
	third, _, _ := stockd.NewWebhook("https://hooks.example.com/3", []string{stockd.BusinessReserve}, time.Now())
	err := s.WebhookCreate(ctx, store.WebhookCreateParams{Webhook: third, Secret: "s", WebhooksMax: 2})
	if !errors.Is(err, stockd.ErrLimitReached) {
		t.Fatalf("third endpoint with a bound of 2: %v; want ErrLimitReached", err)
	}
	kept := stockd.WebhookDeliveriesKept
	for i := range kept + 5 {
		_, err := s.WebhookAttempt(ctx, store.WebhookAttemptParams{
			Delivery:   stockd.WebhookDelivery{WebhookID: w.ID, Seq: int64(i + 1), Attempt: 1, Status: 204, OK: true, At: time.Now()},
			Generation: w.Generation, Cursor: int64(i), FailuresMax: 10,
		})
		if err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
	}
	log, err := s.WebhookDeliveryList(ctx, store.WebhookDeliveryListParams{ID: w.ID, Limit: stockd.PageSizeMax})
	if err != nil || len(log) != kept || log[0].Seq != 6 || log[kept-1].Seq != int64(kept+5) {
		t.Fatalf("delivery log = %d entries from seq %d, %v; want the newest %d", len(log), log[0].Seq, err, kept)
	}
}
