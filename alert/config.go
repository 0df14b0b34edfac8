package alert

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/url"
)

// SinksFile is the JSON file of --alert-sinks:
//
//	{"sinks": [
//	  {"name": "ops", "kind": "webhook", "environment": "production", "tier": 0,
//	   "url": "https://ops.example/hooks/stockd", "secret_env": "STOCKD_OPS_WEBHOOK_SECRET"},
//	  {"name": "buyers", "kind": "slack", "environment": "production",
//	   "url": "https://hooks.slack.com/services/..."},
//	  {"name": "log", "kind": "log", "environment": "production"}
//	]}
//
// A webhook's secret is read from the environment variable secret_env, so
// the file holds no secret.
type SinksFile struct {
	Sinks []SinkSpec `json:"sinks"`
}

// SinkSpec is one sink of a SinksFile.
type SinkSpec struct {
	SinkConfig
	Kind      string `json:"kind"`
	URL       string `json:"url,omitempty"`
	SecretEnv string `json:"secret_env,omitempty"`
}

// Sink kinds.
const (
	SinkWebhook = "webhook"
	SinkSlack   = "slack"
	SinkLog     = "log"
)

// Limits of a sinks file.
const (
	sinksMax          = 32
	sinksFileBytesMax = 64 << 10
	// webhookSecretBytesMin: an HMAC key shorter than this is guessable.
	webhookSecretBytesMin = 16
)

// ParseSinks reads a SinksFile and builds its sinks; getenv reads the
// secrets. Every sink needs a name (unique), a kind, an environment and,
// but for the log, an http(s) URL; a webhook needs a secret of at least 16
// bytes.
func ParseSinks(r io.Reader, getenv func(string) string, logger *slog.Logger) ([]Sink, error) {
	dec := json.NewDecoder(io.LimitReader(r, sinksFileBytesMax))
	dec.DisallowUnknownFields()
	var file SinksFile
	if err := dec.Decode(&file); err != nil {
		return nil, fmt.Errorf("alert sinks: %w", err)
	}
	if len(file.Sinks) > sinksMax {
		return nil, fmt.Errorf("alert sinks: %d sinks, at most %d", len(file.Sinks), sinksMax)
	}
	names := map[string]bool{}
	sinks := make([]Sink, 0, len(file.Sinks))
	for i, spec := range file.Sinks {
		sink, err := spec.build(getenv, logger)
		if err == nil && names[spec.Name] {
			err = fmt.Errorf("name %q is used twice", spec.Name)
		}
		if err != nil {
			return nil, fmt.Errorf("alert sinks: sink %d: %w", i+1, err)
		}
		names[spec.Name] = true
		sinks = append(sinks, sink)
	}
	return sinks, nil
}

func (spec SinkSpec) build(getenv func(string) string, logger *slog.Logger) (Sink, error) {
	switch {
	case spec.Name == "":
		return nil, fmt.Errorf("name is required")
	case spec.Environment == "":
		return nil, fmt.Errorf("%s: environment is required: a sink belongs to one environment", spec.Name)
	case spec.Tier < 0 || spec.Tier > TierLimit:
		return nil, fmt.Errorf("%s: tier must be from 0 to %d", spec.Name, TierLimit)
	}
	if spec.Kind == SinkLog {
		return &Log{SinkConfig: spec.SinkConfig, Logger: logger}, nil
	}
	if u, err := url.Parse(spec.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("%s: url must be an http or https URL", spec.Name)
	}
	switch spec.Kind {
	case SinkSlack:
		return &Slack{SinkConfig: spec.SinkConfig, URL: spec.URL}, nil
	case SinkWebhook:
		if spec.SecretEnv == "" {
			return nil, fmt.Errorf("%s: secret_env is required: webhooks are signed", spec.Name)
		}
		secret := getenv(spec.SecretEnv)
		if len(secret) < webhookSecretBytesMin {
			return nil, fmt.Errorf("%s: environment variable %s must hold a secret of at least %d bytes", spec.Name, spec.SecretEnv, webhookSecretBytesMin)
		}
		return &Webhook{SinkConfig: spec.SinkConfig, URL: spec.URL, Secret: []byte(secret)}, nil
	}
	return nil, fmt.Errorf("%s: kind must be %s, %s or %s", spec.Name, SinkWebhook, SinkSlack, SinkLog)
}
