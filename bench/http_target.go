package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/stockd/stockd"
)

const (
	// httpTimeout bounds one request of the HTTP target.
	httpTimeout = 30 * time.Second
	// responseSizeMax bounds what the bench reads of one answer.
	responseSizeMax = 1 << 20
	// checkWorkersMax bounds the concurrent reads of Check.
	checkWorkersMax = 32
	// expiryGrace is how long past the last deadline Settle waits for the
	// server's expiry worker (it runs every second by default).
	expiryGrace = 3 * time.Second
)

// httpTarget drives a running stockd over its documented /v1 API with plain
// net/http and JSON: what any client would send. With several replicas of
// one database it sends each request to the next in turn.
type httpTarget struct {
	bases  []string
	next   atomic.Uint64
	apiKey string
	client *http.Client
	names  []string
}

func newHTTPTarget(urls, apiKey string, connsMax int) *httpTarget {
	transport := &http.Transport{
		MaxIdleConns:        connsMax,
		MaxIdleConnsPerHost: connsMax,
		IdleConnTimeout:     90 * time.Second,
	}
	var bases []string
	for _, u := range ParseList(urls) {
		bases = append(bases, strings.TrimRight(u, "/"))
	}
	return &httpTarget{
		bases:  bases,
		apiKey: apiKey,
		client: &http.Client{Transport: transport, Timeout: httpTimeout},
	}
}

func (t *httpTarget) Name() string { return "stockd-http" }

// answer is the part of a response the bench reads.
type answer struct {
	status   int
	replayed bool
	body     struct {
		ID string `json:"id"`
		// Status is the reservation's status (a string) in a reservation,
		// and the HTTP status (a number) in a problem+json error.
		Status json.RawMessage `json:"status"`
		Code   string          `json:"code"`
		Detail string          `json:"detail"`
		Totals struct {
			OnHand    int64 `json:"on_hand"`
			Reserved  int64 `json:"reserved"`
			Committed int64 `json:"committed"`
		} `json:"totals"`
		// Gate is GET /v1/stock/{sku}'s view of gated positions (and a
		// pool's gate name in a pool's answer): decoded by who reads it.
		Gate json.RawMessage `json:"gate"`
	}
}

func (t *httpTarget) do(ctx context.Context, method, path, key string, body any) (answer, error) {
	var a answer
	var reader io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return a, err
		}
		reader = bytes.NewReader(raw)
	}
	base := t.bases[int(t.next.Add(1)%uint64(len(t.bases)))]
	req, err := http.NewRequestWithContext(ctx, method, base+path, reader)
	if err != nil {
		return a, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	if t.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+t.apiKey)
	}
	resp, err := t.client.Do(req)
	if err != nil {
		return a, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, responseSizeMax))
	if err != nil {
		return a, fmt.Errorf("%s %s: read answer: %w", method, path, err)
	}
	a.status = resp.StatusCode
	a.replayed = resp.Header.Get("Idempotent-Replayed") == "true"
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &a.body); err != nil {
			return a, fmt.Errorf("%s %s: status %d, answer not JSON: %w", method, path, resp.StatusCode, err)
		}
	}
	return a, nil
}

// fail turns an answer the bench did not expect into an error.
func (a answer) fail(what string) error {
	return fmt.Errorf("%s: status %d %s: %s", what, a.status, a.body.Code, a.body.Detail)
}

type httpLine struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
}

func (t *httpTarget) Setup(ctx context.Context, d *Dataset) error {
	t.names = d.SKUs
	return parallel(ctx, len(d.SKUs), seedWorkersMax, func(i int) error {
		sku := d.SKUs[i]
		a, err := t.do(ctx, http.MethodPost, "/v1/skus", sku+"-create", map[string]string{"sku": sku, "name": "bench " + sku})
		if err != nil {
			return err
		}
		if a.status != http.StatusCreated && a.status != http.StatusOK {
			return a.fail("create sku " + sku)
		}
		a, err = t.do(ctx, http.MethodPost, "/v1/receipts", sku+"-receive",
			map[string]any{"sku": sku, "quantity": d.Stock, "reference": "bench seed"})
		if err != nil {
			return err
		}
		if a.status != http.StatusOK && a.status != http.StatusCreated {
			return a.fail("receive " + sku)
		}
		return nil
	})
}

func (t *httpTarget) Reserve(ctx context.Context, req *Request) (Outcome, error) {
	body := struct {
		Lines      []httpLine `json:"lines"`
		TTLSeconds int64      `json:"ttl_seconds,omitempty"`
	}{Lines: make([]httpLine, len(req.Lines)), TTLSeconds: int64(req.TTL / time.Second)}
	for i, l := range req.Lines {
		body.Lines[i] = httpLine{SKU: t.names[l.SKU], Quantity: l.Quantity}
	}
	a, err := t.do(ctx, http.MethodPost, "/v1/reservations", req.Key, body)
	if err != nil {
		return Outcome{}, err
	}
	return a.outcome("reserve")
}

func (a answer) outcome(what string) (Outcome, error) {
	out := Outcome{Replayed: a.replayed, ReservationID: a.body.ID}
	_ = json.Unmarshal(a.body.Status, &out.ReservationStatus) // a number (problem+json) leaves it empty
	switch {
	case a.status == http.StatusOK || a.status == http.StatusCreated:
		out.Status = Won
	case a.body.Code == stockd.CodeInsufficientStock || a.body.Code == stockd.CodeInvalidTransition:
		out.Status = Rejected
	case a.body.Code == stockd.CodeReservationExpired:
		out.Status, out.Expired = Rejected, true
	case a.status == http.StatusTooManyRequests:
		out.Status = Overloaded
	default:
		return Outcome{}, a.fail(what)
	}
	return out, nil
}

func (t *httpTarget) Confirm(ctx context.Context, id, key string) (Outcome, error) {
	return t.transition(ctx, id, "confirm", key, struct{}{})
}

func (t *httpTarget) Release(ctx context.Context, id, key string) (Outcome, error) {
	return t.transition(ctx, id, "release", key, map[string]string{"reason": stockd.ReleaseCancelled})
}

func (t *httpTarget) transition(ctx context.Context, id, move, key string, body any) (Outcome, error) {
	a, err := t.do(ctx, http.MethodPost, "/v1/reservations/"+url.PathEscape(id)+"/"+move, key, body)
	if err != nil {
		return Outcome{}, err
	}
	out, err := a.outcome(move)
	if out.ReservationID == "" {
		out.ReservationID = id
	}
	return out, err
}

// Settle leaves expiry to the server's own worker and waits for it.
func (t *httpTarget) Settle(ctx context.Context, deadline time.Time) error {
	return sleepUntil(ctx, deadline.Add(expiryGrace))
}

// Check reads GET /v1/stock/{sku} for each SKU of the dataset.
func (t *httpTarget) Check(ctx context.Context, d *Dataset, want []Held) (CheckResult, error) {
	got := make([]stockd.Counters, len(d.SKUs))
	err := parallel(ctx, len(d.SKUs), checkWorkersMax, func(i int) error {
		a, err := t.do(ctx, http.MethodGet, "/v1/stock/"+url.PathEscape(d.SKUs[i]), "", nil)
		if err != nil {
			return err
		}
		if a.status != http.StatusOK {
			return a.fail("read stock of " + d.SKUs[i])
		}
		tot := a.body.Totals
		got[i] = stockd.Counters{OnHand: tot.OnHand, Reserved: tot.Reserved, Committed: tot.Committed}
		return nil
	})
	if err != nil {
		return CheckResult{}, err
	}
	return compareBooks(d, want, func(i int) (stockd.Counters, bool) { return got[i], true }), nil
}

func (t *httpTarget) Cleanup(context.Context, *Dataset) error { return nil }

func (t *httpTarget) Close() error {
	t.client.CloseIdleConnections()
	return nil
}
