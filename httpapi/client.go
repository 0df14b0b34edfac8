package httpapi

import (
	"bytes"
	"context"
	cryptorand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/stockd/stockd"
)

// Client calls the API. Mutations carry an idempotency key (the caller's,
// or a random one) and are retried with the same key after a network error,
// a 5xx or a 429: the first attempt that reached the server decides, and
// every later attempt replays its answer, so a retry after a lost reply
// never applies twice.
//
// Errors the server answered come back as *stockd.Error, so callers branch
// on the code; a network error that outlived every attempt comes back
// wrapped as it is, and then the outcome is unknown: retry with the same
// key, or read the reservation by key.
type Client struct {
	baseURL     string
	httpClient  *http.Client
	attemptsMax int
	backoff     time.Duration
	backoffMax  time.Duration
	actor       string
	apiKey      string
}

// ClientOption configures a Client.
type ClientOption func(*Client)

// WithHTTPClient sets the HTTP client. Defaults to one with a 30 second
// timeout per attempt.
func WithHTTPClient(hc *http.Client) ClientOption {
	return func(c *Client) { c.httpClient = hc }
}

// WithAttemptsMax sets how often one call is tried. Defaults to 4.
func WithAttemptsMax(n int) ClientOption {
	return func(c *Client) { c.attemptsMax = max(n, 1) }
}

// WithBackoff sets the wait before the first retry, doubled before each
// later one (with jitter) up to backoffMax. Defaults to 100 ms and 2 s.
func WithBackoff(first, backoffMax time.Duration) ClientOption {
	return func(c *Client) { c.backoff, c.backoffMax = first, backoffMax }
}

// WithAPIKey sets the key every request presents (Authorization: Bearer).
func WithAPIKey(secret string) ClientOption {
	return func(c *Client) { c.apiKey = secret }
}

// WithActor sets the X-Actor header recorded in the ledger entries of
// every mutation.
func WithActor(actor string) ClientOption {
	return func(c *Client) { c.actor = actor }
}

const (
	attemptsDefault   = 4
	backoffDefault    = 100 * time.Millisecond
	backoffMaxDefault = 2 * time.Second
	clientTimeout     = 30 * time.Second
	// responseSizeMax bounds what the client reads of one answer; a full
	// page of 1000 ledger entries is about half a megabyte.
	responseSizeMax = 16 << 20
)

// NewClient returns a client of the server at baseURL, e.g.
// "http://127.0.0.1:8080".
func NewClient(baseURL string, opts ...ClientOption) *Client {
	c := &Client{
		baseURL:     strings.TrimRight(baseURL, "/"),
		httpClient:  &http.Client{Timeout: clientTimeout},
		attemptsMax: attemptsDefault,
		backoff:     backoffDefault,
		backoffMax:  backoffMaxDefault,
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// call is one API call: the request and where its answer goes.
type call struct {
	method string
	path   string // with query, already escaped
	// key is the idempotency key of a mutation; empty for reads.
	key  string
	body any // nil sends no body
	out  any
	// raw, when set, is sent as it is, labelled contentType, instead of
	// body encoded as JSON.
	raw         []byte
	contentType string
	// ifMatch is the If-Match of a conditional change; etag, when set,
	// receives the answer's ETag.
	ifMatch string
	etag    *string
}

// do runs c, retrying what may be retried, and reports whether the answer
// was a replay.
func (c *Client) do(ctx context.Context, cl call) (replayed bool, err error) {
	payload := cl.raw
	if cl.body != nil {
		if payload, err = json.Marshal(cl.body); err != nil {
			return false, fmt.Errorf("encode %s %s: %w", cl.method, cl.path, err)
		}
	}
	wait := c.backoff
	for attempt := 1; ; attempt++ {
		status, header, body, err := c.send(ctx, cl, payload)
		if err == nil && status < 300 {
			if err := json.Unmarshal(body, cl.out); err != nil {
				return false, fmt.Errorf("decode answer of %s %s: %w", cl.method, cl.path, err)
			}
			if cl.etag != nil {
				*cl.etag = header.Get(headerETag)
			}
			return header.Get(headerReplayed) == "true", nil
		}
		if err == nil {
			err = answerError(status, body)
		}
		if status == 0 && ctx.Err() != nil {
			// The caller gave up; its context's error says so better than
			// the transport's.
			return false, fmt.Errorf("%s %s: %w", cl.method, cl.path, ctx.Err())
		}
		if !retryable(status, err) || attempt >= c.attemptsMax {
			return false, wrapTransport(cl, err)
		}
		if err := sleep(ctx, retryWait(wait, header)); err != nil {
			return false, fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
		}
		wait = min(2*wait, c.backoffMax)
	}
}

// send makes one attempt. status is 0 when no answer arrived.
func (c *Client) send(ctx context.Context, cl call, payload []byte) (status int, header http.Header, body []byte, err error) {
	var reader io.Reader
	if payload != nil {
		reader = bytes.NewReader(payload)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, c.baseURL+cl.path, reader)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("build request: %w", err)
	}
	req.Header.Set("Accept", "application/json, application/problem+json")
	if payload != nil {
		contentType := cl.contentType
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	if cl.key != "" {
		req.Header.Set(headerIdempotencyKey, cl.key)
	}
	if cl.ifMatch != "" {
		req.Header.Set(headerIfMatch, cl.ifMatch)
	}
	if c.actor != "" {
		req.Header.Set(headerActor, c.actor)
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, responseSizeMax))
	if err != nil {
		// The answer was lost on the way: as good as no answer.
		return 0, nil, nil, fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, resp.Header, body, nil
}

// retryable reports whether another attempt may succeed: no answer at all,
// the server's own failure, or overload. Everything else is the answer.
func retryable(status int, err error) bool {
	if status == 0 {
		return !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
	}
	return status >= 500 || status == http.StatusTooManyRequests
}

// retryWait is the backoff with jitter (so that clients refused together do
// not return together), or the server's Retry-After when it asks for longer.
func retryWait(backoff time.Duration, header http.Header) time.Duration {
	wait := backoff/2 + rand.N(backoff/2+1)
	if header != nil {
		if seconds, err := strconv.Atoi(header.Get("Retry-After")); err == nil && seconds > 0 {
			wait = max(wait, time.Duration(seconds)*time.Second)
		}
	}
	return wait
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// answerError turns an error answer into *stockd.Error. An answer that is
// not a problem document (a proxy's page) becomes internal, with the status.
func answerError(status int, body []byte) error {
	var p Problem
	if err := json.Unmarshal(body, &p); err != nil || p.Code == "" {
		return &stockd.Error{Code: stockd.CodeInternal, Message: fmt.Sprintf("unexpected answer: HTTP %d", status)}
	}
	return errorOf(p)
}

// wrapTransport leaves a server's answer as the *stockd.Error it is and
// names the request in a transport error.
func wrapTransport(cl call, err error) error {
	var e *stockd.Error
	if errors.As(err, &e) {
		return e
	}
	return fmt.Errorf("%s %s: %w", cl.method, cl.path, err)
}

// keyOrRandom returns key, or a fresh random key when key is empty. The key
// is chosen once per call, before the first attempt, so that every retry
// reuses it.
func keyOrRandom(key string) string {
	if key != "" {
		return key
	}
	return cryptorand.Text()
}

// documentQuery renders q with the page cursor and size, "" when empty.
func documentQuery(q url.Values, after string, limit int) string {
	if q == nil {
		q = url.Values{}
	}
	if after != "" {
		q.Set("after", after)
	}
	if limit > 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}
