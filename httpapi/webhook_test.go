package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestWebhooksEndpoints walks the webhook endpoints through the API on
// both databases (exerciseWebhooks), and checks what they keep.
func TestWebhooksEndpoints(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "A")
		exerciseWebhooks(h)
	})
}

// exerciseWebhooks answers every documented status of the webhook
// endpoints: the secret shown once and never in a read, replays, bad
// URLs and types, the bound, redelivery and disabling, the delivery log,
// and the store failing.
func exerciseWebhooks(h *harness) {
	t := h.t
	t.Helper()
	var created CreatedWebhook
	body := `{"url":"https://hooks.example.com/stockd","event_types":["reserve","receipt"]}`
	a := h.must("POST", "/v1/webhooks", "webhook-1", body, http.StatusCreated, &created)
	last, err := h.store.LedgerSeqMax(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(created.Secret, stockd.WebhookSecretPrefix) || a.header.Get("Cache-Control") != "no-store" ||
		!created.Enabled || created.Cursor != last || strings.Join(created.EventTypes, ",") != "receipt,reserve" {
		t.Fatalf("created %+v, Cache-Control %q; want a secret, no-store, enabled from seq %d, types in ledger order", created, a.header.Get("Cache-Control"), last)
	}
	// A replay answers the same endpoint, without the secret.
	var replay CreatedWebhook
	a = h.must("POST", "/v1/webhooks", "webhook-1", body, http.StatusCreated, &replay)
	if a.header.Get(headerReplayed) != "true" || replay.ID != created.ID || replay.Secret != "" {
		t.Fatalf("replay %+v, replayed %q; want the endpoint without its secret", replay, a.header.Get(headerReplayed))
	}
	h.must("POST", "/v1/webhooks", "webhook-1", `{"url":"https://other.example.com/","event_types":["reserve"]}`, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeIdempotencyKeyReused)
	secretShown := []byte(created.Secret[len(stockd.WebhookSecretPrefix):])
	for _, path := range []string{"/v1/webhooks", "/v1/webhooks/" + created.ID, "/v1/webhooks/" + created.ID + "/deliveries"} {
		a := h.must("GET", path, "", "", http.StatusOK, nil)
		if bytes.Contains(a.body, secretShown) || bytes.Contains(a.body, []byte(`"secret"`)) {
			t.Fatalf("GET %s shows the secret: %s", path, a.body)
		}
	}
	for _, rec := range h.recorded() {
		if rec.method == "GET" && bytes.Contains(rec.body, secretShown) {
			t.Fatalf("a read showed the secret: %s %s", rec.method, rec.path)
		}
	}

	// Bad input.
	for i, bad := range []string{
		`{"url":"ftp://hooks.example.com/","event_types":["reserve"]}`,
		`{"url":"https:///path","event_types":["reserve"]}`,
		`{"url":"/relative","event_types":["reserve"]}`,
		`{"url":"https://user:pw@hooks.example.com/","event_types":["reserve"]}`,
		`{"url":"https://hooks.example.com/","event_types":["stock.low"]}`,
		`{"url":"https://hooks.example.com/","event_types":[]}`,
		`{"url":"https://hooks.example.com/","event_types":["reserve","reserve"]}`,
		`{"url":"https://hooks.example.com/","event_types":["reserve"],"secret":"mine"}`,
	} {
		h.must("POST", "/v1/webhooks", "webhook-bad-"+strconv.Itoa(i), bad, http.StatusBadRequest, nil)
	}
	h.must("POST", "/v1/webhooks", "", body, http.StatusBadRequest, nil).wantCode(t, stockd.CodeIdempotencyKeyMissing)
	h.must("POST", "/v1/webhooks", "webhook-large", `{"url":"`+strings.Repeat("u", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	h.must("GET", "/v1/webhooks?after=1", "", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/webhooks/a%3Bb", "", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/webhooks/wh_nope", "", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
	h.must("GET", "/v1/webhooks/"+created.ID+"/deliveries?limit=0", "", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/webhooks/wh_nope/deliveries", "", "", http.StatusNotFound, nil)

	// Redelivery and disabling.
	h.must("POST", "/v1/webhooks/"+created.ID+"/redeliver", "redeliver-none", `{}`, http.StatusBadRequest, nil)
	h.must("POST", "/v1/webhooks/"+created.ID+"/redeliver", "redeliver-zero", `{"from_seq":0}`, http.StatusBadRequest, nil)
	h.must("POST", "/v1/webhooks/wh_nope/redeliver", "redeliver-unknown", `{"from_seq":1}`, http.StatusNotFound, nil)
	h.must("POST", "/v1/webhooks/"+created.ID+"/redeliver", "redeliver-large", `{"r":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	var off Webhook
	h.must("POST", "/v1/webhooks/"+created.ID+"/disable", "disable-1", "", http.StatusOK, &off)
	if off.Enabled || off.DisabledAt == nil || off.DisabledReason == "" {
		t.Fatalf("disabled %+v; want enabled false with a time and reason", off)
	}
	a = h.must("POST", "/v1/webhooks/"+created.ID+"/disable", "disable-1", "{}", http.StatusOK, nil)
	if a.header.Get(headerReplayed) != "true" {
		t.Fatalf("disable replay: Idempotent-Replayed %q", a.header.Get(headerReplayed))
	}
	h.must("POST", "/v1/webhooks/"+created.ID+"/disable", "disable-body", `{"reason":"x"}`, http.StatusBadRequest, nil)
	h.must("POST", "/v1/webhooks/"+created.ID+"/disable", "disable-large", `{"r":"`+strings.Repeat("r", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	h.must("POST", "/v1/webhooks/wh_nope/disable", "disable-unknown", "", http.StatusNotFound, nil)
	var on Webhook
	h.must("POST", "/v1/webhooks/"+created.ID+"/redeliver", "redeliver-1", `{"from_seq":1}`, http.StatusOK, &on)
	if !on.Enabled || on.Cursor != 0 || on.DisabledAt != nil {
		t.Fatalf("redelivered %+v; want enabled from cursor 0", on)
	}
	h.must("POST", "/v1/webhooks/"+created.ID+"/redeliver", "disable-1", `{"from_seq":1}`, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeIdempotencyKeyReused)
	h.must("POST", "/v1/webhooks/"+created.ID+"/disable", "redeliver-1", "", http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeIdempotencyKeyReused)
	var page WebhookDeliveryPage
	h.must("GET", "/v1/webhooks/"+created.ID+"/deliveries?after=5&limit=10", "", "", http.StatusOK, &page)
	if len(page.Deliveries) != 0 || page.NextAfter != 5 {
		t.Fatalf("empty log page %+v; want none, next_after 5", page)
	}

	// The store failing.
	for fault, status := range map[string]int{faultInternal: http.StatusInternalServerError, faultDown: http.StatusServiceUnavailable} {
		hdr := map[string]string{headerTestFault: fault}
		for _, path := range []string{"/v1/webhooks", "/v1/webhooks/" + created.ID, "/v1/webhooks/" + created.ID + "/deliveries"} {
			if a := h.sendHeaders("GET", path, nil, hdr); a.status != status {
				t.Fatalf("GET %s with %s: %d; want %d", path, fault, a.status, status)
			}
		}
		for path, body := range map[string]string{"/v1/webhooks": body, "/v1/webhooks/" + created.ID + "/redeliver": `{"from_seq":1}`, "/v1/webhooks/" + created.ID + "/disable": ""} {
			hdr := map[string]string{headerTestFault: fault, headerIdempotencyKey: "fault-" + fault + path}
			if a := h.sendHeaders("POST", path, []byte(body), hdr); a.status != status {
				t.Fatalf("POST %s with %s: %d; want %d", path, fault, a.status, status)
			}
		}
	}

	// The bound.
	var list WebhookList
	h.must("GET", "/v1/webhooks", "", "", http.StatusOK, &list)
	for i := len(list.Webhooks); i < stockd.WebhooksMax; i++ {
		h.must("POST", "/v1/webhooks", "webhook-fill-"+strconv.Itoa(i), body, http.StatusCreated, nil)
	}
	h.must("POST", "/v1/webhooks", "webhook-over", body, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeUnprocessable)
	h.must("GET", "/v1/webhooks", "", "", http.StatusOK, &list)
	if len(list.Webhooks) != stockd.WebhooksMax || list.Webhooks[0].ID != created.ID {
		t.Fatalf("%d webhooks, first %s; want %d, the first created first", len(list.Webhooks), list.Webhooks[0].ID, stockd.WebhooksMax)
	}
	if _, err := json.Marshal(list); err != nil {
		t.Fatal(err)
	}
}
