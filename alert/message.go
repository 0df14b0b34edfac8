package alert

import (
	"fmt"
	"strings"
	"time"

	"github.com/stockd/stockd"
)

// Message is what a sink receives: one alert's notice, or the daily
// digest. Every message carries the deployment's environment tag (seed 003
// §6: a test deployment's alerts once flooded the production channel).
type Message struct {
	Environment string `json:"environment"`
	// Kind is "alert" or "digest".
	Kind string `json:"kind"`
	// Event is what happened to the alert: raised or escalated.
	Event        string               `json:"event,omitempty"`
	AlertID      int64                `json:"alert_id,omitempty"`
	SKU          string               `json:"sku,omitempty"`
	Level        string               `json:"level,omitempty"`
	Tier         int                  `json:"tier"`
	BusinessDate string               `json:"business_date"`
	Figures      *stockd.AlertFigures `json:"figures,omitempty"`
	// Digest lists the notices the digest reports (kind digest only).
	Digest []stockd.AlertNotice `json:"digest,omitempty"`
	// Text is the message for a person, the environment first.
	Text string    `json:"text"`
	At   time.Time `json:"at"`
	// DeliveryID is the same on every retry of one message to one sink, so
	// that a receiver can drop a retry it already processed.
	DeliveryID string `json:"delivery_id"`
}

// Kinds of message.
const (
	MessageAlert  = "alert"
	MessageDigest = "digest"
)

// digestLinesMax bounds the lines of one digest message; the rest is
// counted in its text.
const digestLinesMax = 200

func alertMessage(a stockd.Alert, n stockd.AlertNotice) Message {
	event := stockd.AlertRaised
	if len(a.History) > 0 && a.History[len(a.History)-1].Event == stockd.AlertEscalated {
		event = stockd.AlertEscalated
	}
	figures := a.Figures
	return Message{
		Kind: MessageAlert, Event: event, AlertID: a.ID, SKU: a.SKU, Level: n.Level, Tier: n.Tier,
		BusinessDate: n.BusinessDate, Figures: &figures, At: n.At,
		DeliveryID: fmt.Sprintf("alert-%d-%s-%d-%s", a.ID, n.Level, n.Tier, n.BusinessDate),
	}
}

func digestMessage(date string, lines []stockd.AlertNotice) Message {
	return Message{
		Kind: MessageDigest, BusinessDate: date, Digest: lines[:min(len(lines), digestLinesMax)],
		DeliveryID: "digest-" + date,
	}
}

// text is m's line for a person, written when the environment is known.
func (m Message) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "[%s] ", m.Environment)
	if m.Kind == MessageDigest {
		fmt.Fprintf(&b, "stockd digest of %s: %d alerts held back while purchase orders cover them", m.BusinessDate, len(m.Digest))
		for _, n := range m.Digest {
			fmt.Fprintf(&b, "\n• %s %s", n.SKU, n.Level)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "stockd %s %s: SKU %s is %s", m.Event, m.BusinessDate, m.SKU, m.Level)
	if m.Tier > 0 {
		fmt.Fprintf(&b, " (tier %d: unacknowledged)", m.Tier)
	}
	if f := m.Figures; f != nil {
		if f.Reason != "" {
			fmt.Fprintf(&b, ": %s", f.Reason)
		}
		if f.SuggestedQuantity > 0 {
			fmt.Fprintf(&b, "; order %d", f.SuggestedQuantity)
		}
	}
	fmt.Fprintf(&b, " (alert %d)", m.AlertID)
	return b.String()
}
