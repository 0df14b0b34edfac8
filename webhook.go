package stockd

import (
	"crypto/rand"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
)

// Webhooks: endpoints that receive the ledger's events over HTTP, each from
// a cursor of its own (package dispatch delivers them).
const (
	// WebhooksMax bounds the endpoints one database holds: the dispatcher
	// runs one delivery loop per enabled endpoint.
	WebhooksMax = 32
	// WebhookURLLengthMax bounds an endpoint's URL.
	WebhookURLLengthMax = 2048
	// WebhookDeliveriesKept is how many delivery attempts the log keeps per
	// endpoint, the newest; older ones are deleted as new ones come.
	WebhookDeliveriesKept = 200
	// WebhookErrorLengthMax bounds the error text of an attempt and the
	// reason an endpoint was disabled.
	WebhookErrorLengthMax = 512
	// webhookSecretBytes is the entropy of a signing secret: 256 bits.
	webhookSecretBytes = 32
	// WebhookSecretPrefix starts every signing secret, so that one is
	// recognisable in a config file or a secret scanner.
	WebhookSecretPrefix = "whsec_"
	webhookIDPrefix     = "wh_"
)

// Webhook is an endpoint as stored and read, without its secret: the
// secret is shown once, when the endpoint is made, and otherwise only the
// dispatcher reads it (store.WebhookTarget).
type Webhook struct {
	ID         string    `json:"id"`
	URL        string    `json:"url"`
	EventTypes []string  `json:"event_types"`
	CreatedAt  time.Time `json:"created_at"`
	// DisabledAt is zero while the endpoint receives events.
	DisabledAt     time.Time `json:"disabled_at,omitzero"`
	DisabledReason string    `json:"disabled_reason,omitempty"`
	// Failures counts the consecutive failed attempts since the last
	// success: the attempts on the event after Cursor, since every event
	// is retried until it succeeds.
	Failures int `json:"failures"`
	// Cursor is the last seq delivered (or skipped as of another type).
	Cursor int64 `json:"cursor"`
	// Generation changes on every redelivery and disabling, so that an
	// attempt that began before one cannot move the cursor after it.
	Generation int64 `json:"generation"`
}

// Disabled reports whether the endpoint is dead-lettered or switched off.
func (w Webhook) Disabled() bool { return !w.DisabledAt.IsZero() }

// Wants reports whether the endpoint takes events of businessType.
func (w Webhook) Wants(businessType string) bool { return slices.Contains(w.EventTypes, businessType) }

// WebhookDelivery is one attempt to deliver one event to one endpoint.
type WebhookDelivery struct {
	ID        int64  `json:"id"`
	WebhookID string `json:"webhook_id"`
	Seq       int64  `json:"seq"`
	// Attempt counts from 1 for each event.
	Attempt int `json:"attempt"`
	// Status is the HTTP status answered, 0 when none was.
	Status   int           `json:"status"`
	OK       bool          `json:"ok"`
	Error    string        `json:"error,omitempty"`
	Duration time.Duration `json:"duration"`
	At       time.Time     `json:"at"`
}

// WebhookEventTypes are the types an endpoint may ask for: every business
// type of the ledger, then the events only (EventOnlyTypes: derived stock
// events and notices), in a fixed order.
func WebhookEventTypes() []string {
	return append([]string{
		BusinessReceipt, BusinessAdjustment, BusinessReserve, BusinessConfirm, BusinessRelease,
		BusinessExpire, BusinessFulfil, BusinessAllocation, BusinessCampaignClose, BusinessCampaignReturn,
		BusinessRefund, BusinessReturn, BusinessQuarantineRelease, BusinessScrap, BusinessMove,
		BusinessShipment, BusinessTransfer, BusinessTransferReceipt, BusinessPurchaseOrder,
		BusinessPOReceipt, BusinessPOCancel,
	}, EventOnlyTypes()...)
}

// NewWebhook makes an endpoint for rawURL and the event types named: it
// returns the endpoint to store and its signing secret. Bad input is an
// *Error; a failure of the system's random source is another error.
func NewWebhook(rawURL string, eventTypes []string, now time.Time) (Webhook, string, error) {
	if verr := ValidWebhookURL(rawURL); verr != nil {
		return Webhook{}, "", verr
	}
	types, verr := validWebhookTypes(eventTypes)
	if verr != nil {
		return Webhook{}, "", verr
	}
	secretBytes := make([]byte, webhookSecretBytes)
	if _, err := rand.Read(secretBytes); err != nil {
		return Webhook{}, "", fmt.Errorf("random webhook secret: %w", err)
	}
	idBytes := make([]byte, apiKeyIDBytes)
	if _, err := rand.Read(idBytes); err != nil {
		return Webhook{}, "", fmt.Errorf("random webhook id: %w", err)
	}
	w := Webhook{
		ID:         webhookIDPrefix + apiKeyEncoding.EncodeToString(idBytes),
		URL:        rawURL,
		EventTypes: types,
		CreatedAt:  now.UTC().Truncate(time.Microsecond),
	}
	return w, WebhookSecretPrefix + apiKeyEncoding.EncodeToString(secretBytes), nil
}

// ValidWebhookURL refuses what is not an absolute http(s) URL with a host.
// Credentials in the URL are refused too: every read shows the URL.
func ValidWebhookURL(rawURL string) *Error {
	if rawURL == "" || len(rawURL) > WebhookURLLengthMax {
		return InvalidField("url", "must be 1-%d characters", WebhookURLLengthMax)
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return InvalidField("url", "must be an absolute http or https URL with a host")
	}
	if u.User != nil {
		return InvalidField("url", "must not carry credentials: every read shows it; authenticate receipts by the signature")
	}
	if u.Fragment != "" || strings.ContainsAny(rawURL, " \t\r\n") {
		return InvalidField("url", "must have no fragment and no whitespace")
	}
	return nil
}

// validWebhookTypes returns the types sorted in WebhookEventTypes order,
// refusing none, unknown ones and repeats.
func validWebhookTypes(names []string) ([]string, *Error) {
	known := WebhookEventTypes()
	if len(names) == 0 {
		return nil, InvalidField("event_types", "must name at least one of %s", strings.Join(known, ", "))
	}
	var out []string
	for _, name := range names {
		if !slices.Contains(known, name) {
			return nil, InvalidField("event_types", "unknown event type %q; want one of %s", name, strings.Join(known, ", "))
		}
		if slices.Contains(out, name) {
			return nil, InvalidField("event_types", "event type %q named twice", name)
		}
		out = append(out, name)
	}
	slices.SortFunc(out, func(a, b string) int { return slices.Index(known, a) - slices.Index(known, b) })
	return out, nil
}

// TruncateWebhookError keeps an error text within WebhookErrorLengthMax
// bytes, on a rune boundary.
func TruncateWebhookError(s string) string {
	if len(s) <= WebhookErrorLengthMax {
		return s
	}
	cut := WebhookErrorLengthMax
	for cut > 0 && !utf8RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
