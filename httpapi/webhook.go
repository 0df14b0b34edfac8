package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/archive"
	"github.com/stockd/stockd/store"
)

// webhookRoutes: registering and managing endpoints needs admin (a URL
// that receives every event, and its secret); looking needs read.
func (s *Server) webhookRoutes() []route {
	return []route{
		{"POST /v1/webhooks", "webhook_create", stockd.ScopeAdmin, s.createWebhook},
		{"GET /v1/webhooks", "webhook_list", stockd.ScopeRead, s.listWebhooks},
		{"GET /v1/webhooks/{id}", "webhook_get", stockd.ScopeRead, s.getWebhook},
		{"GET /v1/webhooks/{id}/deliveries", "webhook_deliveries", stockd.ScopeRead, s.listWebhookDeliveries},
		{"POST /v1/webhooks/{id}/redeliver", "webhook_redeliver", stockd.ScopeAdmin, s.redeliverWebhook},
		{"POST /v1/webhooks/{id}/disable", "webhook_disable", stockd.ScopeAdmin, s.disableWebhook},
	}
}

// Webhook is an endpoint as every read shows it: never its secret.
type Webhook struct {
	ID         string    `json:"id"`
	URL        string    `json:"url"`
	EventTypes []string  `json:"event_types"`
	CreatedAt  time.Time `json:"created_at"`
	Enabled    bool      `json:"enabled"`
	// DisabledAt and DisabledReason are absent while enabled.
	DisabledAt          *time.Time `json:"disabled_at,omitempty"`
	DisabledReason      string     `json:"disabled_reason,omitempty"`
	ConsecutiveFailures int        `json:"consecutive_failures"`
	// Cursor is the last seq delivered: the next event is the first after
	// it of the endpoint's types.
	Cursor int64 `json:"cursor"`
}

// CreatedWebhook is the answer of POST /v1/webhooks: the endpoint and,
// this once, its signing secret. A replay of the creation answers the
// endpoint without it.
type CreatedWebhook struct {
	Webhook
	Secret string `json:"secret,omitempty"`
}

// WebhookList is the answer of GET /v1/webhooks.
type WebhookList struct {
	Webhooks []Webhook `json:"webhooks"`
}

// WebhookDelivery is one logged attempt.
type WebhookDelivery struct {
	ID      int64 `json:"id"`
	Seq     int64 `json:"seq"`
	Attempt int   `json:"attempt"`
	// Status is the HTTP status the endpoint answered, 0 when none.
	Status     int       `json:"status"`
	OK         bool      `json:"ok"`
	Error      string    `json:"error,omitempty"`
	DurationMS float64   `json:"duration_ms"`
	At         time.Time `json:"at"`
}

// WebhookDeliveryPage is one page of GET /v1/webhooks/{id}/deliveries.
type WebhookDeliveryPage struct {
	Deliveries []WebhookDelivery `json:"deliveries"`
	NextAfter  int64             `json:"next_after"`
}

type webhookRequest struct {
	URL        string   `json:"url"`
	EventTypes []string `json:"event_types"`
}

// webhookAnswer makes the idempotency record of a mutation from render,
// the answer of the endpoint as the mutation left it.
type webhookAnswer func(render func(stockd.Webhook) any, created bool) store.WebhookAnswer

type redeliverRequest struct {
	FromSeq *int64 `json:"from_seq"`
}

func webhookOut(w stockd.Webhook) Webhook {
	out := Webhook{
		ID: w.ID, URL: w.URL, EventTypes: w.EventTypes, CreatedAt: w.CreatedAt.UTC(), Enabled: !w.Disabled(),
		DisabledReason: w.DisabledReason, ConsecutiveFailures: w.Failures, Cursor: w.Cursor,
	}
	if w.Disabled() {
		at := w.DisabledAt.UTC()
		out.DisabledAt = &at
	}
	return out
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) {
	var req webhookRequest
	s.webhookMutate(w, r, &req, false, func(answer webhookAnswer) (any, int, error) {
		hook, secret, err := stockd.NewWebhook(req.URL, req.EventTypes, s.now())
		if err != nil {
			return nil, 0, err
		}
		// A new endpoint hears of what happens from now on; the history
		// is a redelivery from seq 1 away.
		if hook.Cursor, err = s.store.LedgerSeqMax(r.Context()); err != nil {
			return nil, 0, err
		}
		err = s.store.WebhookCreate(r.Context(), store.WebhookCreateParams{
			Webhook: hook, Secret: secret,
			// The stored answer leaves the secret out: shown once.
			Answer: answer(func(hook stockd.Webhook) any { return CreatedWebhook{Webhook: webhookOut(hook)} }, true),
		})
		if errors.Is(err, stockd.ErrLimitReached) {
			return nil, 0, stockd.Errorf(stockd.CodeUnprocessable, "at most %d webhooks may exist, disabled ones included", stockd.WebhooksMax)
		}
		if err != nil {
			return nil, 0, err
		}
		s.audit(r, stockd.NewAuditEvent(s.now(), actingKeyID(r), "webhook_create", hook.ID, stockd.AuditOutcomeDone,
			fmt.Sprintf("types %v", hook.EventTypes)))
		// The secret is in this answer only: no cache may keep it.
		w.Header().Set("Cache-Control", "no-store")
		return CreatedWebhook{Webhook: webhookOut(hook), Secret: secret}, http.StatusCreated, nil
	})
}

func (s *Server) redeliverWebhook(w http.ResponseWriter, r *http.Request) {
	var req redeliverRequest
	s.webhookMutate(w, r, &req, false, func(answer webhookAnswer) (any, int, error) {
		id, verr := pathIdentifier(r, "id")
		if verr != nil {
			return nil, 0, verr
		}
		if req.FromSeq == nil || *req.FromSeq < 1 {
			return nil, 0, stockd.InvalidField("from_seq", "is required, an integer of at least 1")
		}
		// The entries up to an archive's cut are in its file: a redelivery
		// from there would pass over them in silence.
		archives, err := s.store.LedgerArchiveList(r.Context())
		if err != nil {
			return nil, 0, err
		}
		if cut := archive.CutSeq(archives); *req.FromSeq <= cut {
			return nil, 0, stockd.InvalidField("from_seq", "the ledger up to entry %d is archived (stockd ledger archive): redeliver from %d or later", cut, cut+1)
		}
		hook, err := s.store.WebhookRedeliver(r.Context(), store.WebhookRedeliverParams{
			ID: id, FromSeq: *req.FromSeq,
			Answer: answer(func(hook stockd.Webhook) any { return webhookOut(hook) }, false),
		})
		if err != nil {
			return nil, 0, err
		}
		s.audit(r, stockd.NewAuditEvent(s.now(), actingKeyID(r), "webhook_redeliver", id, stockd.AuditOutcomeDone,
			"from seq "+strconv.FormatInt(*req.FromSeq, 10)))
		return webhookOut(hook), http.StatusOK, nil
	})
}

func (s *Server) disableWebhook(w http.ResponseWriter, r *http.Request) {
	var req emptyRequest
	s.webhookMutate(w, r, &req, true, func(answer webhookAnswer) (any, int, error) {
		id, verr := pathIdentifier(r, "id")
		if verr != nil {
			return nil, 0, verr
		}
		reason := "disabled through the API"
		if by := actingKeyID(r); by != "" {
			reason += " by " + by
		}
		hook, err := s.store.WebhookDisable(r.Context(), store.WebhookDisableParams{
			ID: id, At: s.now(), Reason: reason,
			Answer: answer(func(hook stockd.Webhook) any { return webhookOut(hook) }, false),
		})
		if err != nil {
			return nil, 0, err
		}
		s.audit(r, stockd.NewAuditEvent(s.now(), actingKeyID(r), "webhook_disable", id, stockd.AuditOutcomeDone, ""))
		return webhookOut(hook), http.StatusOK, nil
	})
}

// webhookMutate runs the steps the webhook mutations share. They change
// no stock, so they go to the store and not the engine, but take an
// Idempotency-Key as every mutation does: the stored answer is written in
// the same transaction as the change (apply passes answer's record to the
// store), and a request under a stored key replays it, or is refused as
// key_reused when it differs. Refusals are not stored: a retry is decided
// afresh.
func (s *Server) webhookMutate(w http.ResponseWriter, r *http.Request, body any, optional bool,
	apply func(answer webhookAnswer) (any, int, error)) {
	key, verr := idempotencyKey(r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	raw, verr := readBody(w, r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	decode := decodeStrict
	if optional {
		decode = decodeOptional
	}
	if verr := decode(raw, body); verr != nil {
		writeProblem(w, verr)
		return
	}
	hash := requestHash(r, body)
	if s.replayWebhook(w, r, key, hash) {
		return
	}
	answer := func(render func(stockd.Webhook) any, created bool) store.WebhookAnswer {
		return func(hook stockd.Webhook) (stockd.IdempotencyRecord, error) {
			object, err := json.Marshal(render(hook))
			if err != nil {
				return stockd.IdempotencyRecord{}, fmt.Errorf("encode answer: %w", err)
			}
			result, err := json.Marshal(stockd.Result{Object: object, Created: created})
			if err != nil {
				return stockd.IdempotencyRecord{}, fmt.Errorf("encode result: %w", err)
			}
			return stockd.IdempotencyRecord{Key: key, RequestHash: hash, Result: result, CreatedAt: s.now()}, nil
		}
	}
	out, status, err := apply(answer)
	var bad *stockd.Error
	switch {
	case errors.As(err, &bad):
		writeProblem(w, bad)
	case errors.Is(err, stockd.ErrNotFound):
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "webhook %s not found", r.PathValue("id")))
	case errors.Is(err, store.ErrRetry):
		// Another request stored the key meanwhile: answer as it did.
		if !s.replayWebhook(w, r, key, hash) {
			s.failure(w, r, err)
		}
	case err != nil:
		s.failure(w, r, err)
	default:
		writeJSON(w, status, out)
	}
}

// replayWebhook answers from the record stored under key, if there is one.
func (s *Server) replayWebhook(w http.ResponseWriter, r *http.Request, key, hash string) bool {
	recs, err := s.store.IdempotencyGet(r.Context(), []string{key})
	if err != nil {
		s.failure(w, r, err)
		return true
	}
	if len(recs) == 0 {
		return false
	}
	if recs[0].RequestHash != hash {
		writeProblem(w, stockd.Errorf(stockd.CodeIdempotencyKeyReused, "idempotency key %q was used for a different request", key))
		return true
	}
	if recs[0].Pruned() {
		writeProblem(w, stockd.PrunedRefusal(stockd.UnscopedKey(key), recs[0].CreatedAt))
		return true
	}
	w.Header().Set(headerReplayed, "true")
	var res stockd.Result
	if err := json.Unmarshal(recs[0].Result, &res); err != nil {
		s.failure(w, r, fmt.Errorf("stored answer of key %q: %w", key, err))
		return true
	}
	if res.Err != nil {
		writeProblem(w, res.Err)
		return true
	}
	status := http.StatusOK
	if res.Created {
		status = http.StatusCreated
	}
	writeJSON(w, status, res.Object)
	return true
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) {
	hooks, err := s.store.WebhookList(r.Context())
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := WebhookList{Webhooks: make([]Webhook, 0, len(hooks))}
	for _, h := range hooks {
		out.Webhooks = append(out.Webhooks, webhookOut(h))
	}
	writeJSON(w, http.StatusOK, out)
}

// webhookOf reads the endpoint the path names, answering when it cannot.
func (s *Server) webhookOf(w http.ResponseWriter, r *http.Request) (stockd.Webhook, bool) {
	id, verr := pathIdentifier(r, "id")
	if verr != nil {
		writeProblem(w, verr)
		return stockd.Webhook{}, false
	}
	hook, err := s.store.WebhookGet(r.Context(), id)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "webhook %s not found", id))
		return stockd.Webhook{}, false
	}
	if err != nil {
		s.failure(w, r, err)
		return stockd.Webhook{}, false
	}
	return hook, true
}

func (s *Server) getWebhook(w http.ResponseWriter, r *http.Request) {
	if hook, ok := s.webhookOf(w, r); ok {
		writeJSON(w, http.StatusOK, webhookOut(hook))
	}
}

func (s *Server) listWebhookDeliveries(w http.ResponseWriter, r *http.Request) {
	params, verr := pageParams(r.URL.Query())
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	hook, ok := s.webhookOf(w, r)
	if !ok {
		return
	}
	log, err := s.store.WebhookDeliveryList(r.Context(), store.WebhookDeliveryListParams{ID: hook.ID, After: params.After, Limit: params.Limit})
	if err != nil {
		s.failure(w, r, err)
		return
	}
	page := WebhookDeliveryPage{Deliveries: make([]WebhookDelivery, 0, len(log)), NextAfter: params.After}
	for _, d := range log {
		page.Deliveries = append(page.Deliveries, WebhookDelivery{
			ID: d.ID, Seq: d.Seq, Attempt: d.Attempt, Status: d.Status, OK: d.OK, Error: d.Error,
			DurationMS: float64(d.Duration.Microseconds()) / 1000, At: d.At.UTC(),
		})
		page.NextAfter = d.ID
	}
	writeJSON(w, http.StatusOK, page)
}
