package alert

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/stockd/stockd/webhook"
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
	HeaderTimestamp   = webhook.HeaderTimestamp
	HeaderSignature   = webhook.HeaderSignature
	HeaderDelivery    = "X-Stockd-Delivery"
)

// responseBodyMax bounds what is read of a receiver's answer.
const responseBodyMax = 4 << 10

// Webhook posts each message as JSON, signed as the event webhooks are
// (package webhook: HeaderSignature is "sha256=" and the hex HMAC-SHA256,
// under Secret, of the HeaderTimestamp value, a dot and the body), so one
// receiver's check (webhook.Verify) serves both.
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
	timestamp := webhook.Timestamp(now())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("%w: %w", ErrPermanent, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderEnvironment, m.Environment)
	req.Header.Set(HeaderTimestamp, timestamp)
	req.Header.Set(HeaderSignature, webhook.Sign(w.Secret, timestamp, body))
	req.Header.Set(HeaderDelivery, m.DeliveryID)
	return post(w.Client, req)
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
