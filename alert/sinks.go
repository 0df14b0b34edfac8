package alert

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// SinkConfig is what every sink has: a name for the delivery log, its
// environment and its first contact tier.
type SinkConfig struct {
	Name        string `json:"name"`
	Environment string `json:"environment"`
	Tier        int    `json:"tier"`
}

// Headers of a webhook delivery.
const (
	HeaderEnvironment = "X-Stockd-Environment"
	HeaderTimestamp   = "X-Stockd-Timestamp"
	HeaderSignature   = "X-Stockd-Signature"
	HeaderDelivery    = "X-Stockd-Delivery"
)

// responseBodyMax bounds what is read of a receiver's answer.
const responseBodyMax = 4 << 10

// Webhook posts each message as JSON, signed: HeaderSignature is
// "sha256=" and the hex HMAC-SHA256, under Secret, of the HeaderTimestamp
// value (Unix seconds), a dot and the body. Signing the timestamp lets a
// receiver refuse a replayed old delivery (see VerifySignature).
type Webhook struct {
	SinkConfig
	URL    string
	Secret []byte
	// Client defaults to one with a 10-second timeout.
	Client *http.Client
	// Now is the clock of the timestamp. Defaults to time.Now.
	Now func() time.Time
}

// Name, Environment and Tier make a Webhook a Sink.
func (w *Webhook) Name() string        { return w.SinkConfig.Name }
func (w *Webhook) Environment() string { return w.SinkConfig.Environment }
func (w *Webhook) Tier() int           { return w.SinkConfig.Tier }

// Send posts m once.
func (w *Webhook) Send(ctx context.Context, m Message) (int, error) {
	body, err := json.Marshal(m)
	if err != nil {
		return 0, fmt.Errorf("%w: encode message: %w", ErrPermanent, err)
	}
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	timestamp := strconv.FormatInt(now().Unix(), 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderEnvironment, m.Environment)
	req.Header.Set(HeaderTimestamp, timestamp)
	req.Header.Set(HeaderSignature, Signature(w.Secret, timestamp, body))
	req.Header.Set(HeaderDelivery, m.DeliveryID)
	return post(w.Client, req)
}

// Signature is the value of HeaderSignature for a timestamp and body.
func Signature(secret []byte, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(timestamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// ErrBadSignature is VerifySignature's refusal.
var ErrBadSignature = errors.New("webhook signature does not verify")

// VerifySignature is what a receiver runs: the signature must match, in
// constant time, and the timestamp be within tolerance of now.
func VerifySignature(secret []byte, timestamp string, body []byte, signature string, now time.Time, tolerance time.Duration) error {
	if !hmac.Equal([]byte(Signature(secret, timestamp, body)), []byte(signature)) {
		return ErrBadSignature
	}
	unix, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q", ErrBadSignature, timestamp)
	}
	if age := now.Sub(time.Unix(unix, 0)); age > tolerance || age < -tolerance {
		return fmt.Errorf("%w: timestamp %s is %s from now", ErrBadSignature, timestamp, age)
	}
	return nil
}

// Slack posts m's text to a Slack-compatible incoming webhook
// ({"text": ...}; Mattermost and others take the same).
type Slack struct {
	SinkConfig
	URL    string
	Client *http.Client
}

// Name, Environment and Tier make a Slack a Sink.
func (s *Slack) Name() string        { return s.SinkConfig.Name }
func (s *Slack) Environment() string { return s.SinkConfig.Environment }
func (s *Slack) Tier() int           { return s.SinkConfig.Tier }

// Send posts m's text once.
func (s *Slack) Send(ctx context.Context, m Message) (int, error) {
	body, err := json.Marshal(map[string]string{"text": m.Text})
	if err != nil {
		return 0, fmt.Errorf("%w: encode message: %w", ErrPermanent, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	req.Header.Set("Content-Type", "application/json")
	return post(s.Client, req)
}

var clientDefault = &http.Client{Timeout: 10 * time.Second}

func post(client *http.Client, req *http.Request) (int, error) {
	if client == nil {
		client = clientDefault
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, fmt.Errorf("post to %s: %w", req.URL.Redacted(), err)
	}
	defer resp.Body.Close()
	// Read a bounded answer so the connection can be reused.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, responseBodyMax))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, statusError(resp.StatusCode)
	}
	return resp.StatusCode, nil
}

// Log writes each message to the structured log.
type Log struct {
	SinkConfig
	Logger *slog.Logger
}

// Name, Environment and Tier make a Log a Sink.
func (l *Log) Name() string        { return l.SinkConfig.Name }
func (l *Log) Environment() string { return l.SinkConfig.Environment }
func (l *Log) Tier() int           { return l.SinkConfig.Tier }

// Send logs m.
func (l *Log) Send(ctx context.Context, m Message) (int, error) {
	logger := l.Logger
	if logger == nil {
		logger = slog.Default()
	}
	logger.LogAttrs(ctx, slog.LevelWarn, m.Text,
		slog.String("environment", m.Environment), slog.String("kind", m.Kind), slog.String("event", m.Event),
		slog.Int64("alert_id", m.AlertID), slog.String("sku", m.SKU), slog.String("level", m.Level), slog.Int("tier", m.Tier))
	return 0, nil
}
