package stockd

import (
	"errors"
	"time"
)

// An Alert is one episode of a SKU at one condition level (seed 003 §4.3):
// opened when an evaluation first finds the SKU at that level, resolved by
// itself when a later evaluation finds it elsewhere. Its Level may rise
// above Condition by escalation, and its Tier climbs while nobody
// acknowledges it. The alert worker (package alert) decides every change;
// storage keeps at most one open alert per SKU.
type Alert struct {
	ID  int64  `json:"id"`
	SKU string `json:"sku"`
	// Condition is the level the figures gave when the episode opened
	// (replenish.Level's names); the episode lasts while they keep giving it.
	Condition string `json:"condition"`
	// Level is what the alert announces: Condition, or critical after a
	// warning went unacknowledged (escalation).
	Level  string      `json:"level"`
	Status AlertStatus `json:"status"`
	// Tier is the contact tier the alert has reached: 0 first, one more for
	// each escalation of a red alert nobody acknowledged.
	Tier int `json:"tier"`
	// Announced is whether the current Level and Tier reached the sinks; an
	// alert held back by suppression is announced once suppression ends.
	Announced bool `json:"announced"`
	// Suppressed is whether open purchase orders covered the suggestion at
	// the last evaluation.
	Suppressed bool         `json:"suppressed"`
	Figures    AlertFigures `json:"figures"`
	History    []AlertStep  `json:"history"`

	OpenedAt time.Time `json:"opened_at"`
	// ChangedAt is when Level or Tier last changed: the escalation clock.
	ChangedAt   time.Time `json:"changed_at"`
	EvaluatedAt time.Time `json:"evaluated_at"`
	// AckedAt and AckedBy say who took the alert on (the API key) and when;
	// the first acknowledgement stands.
	AckedAt    *time.Time `json:"acked_at,omitempty"`
	AckedBy    string     `json:"acked_by,omitempty"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	// Resolution says why the episode ended: "cleared" (back to ok) or the
	// level it moved to.
	Resolution string `json:"resolution,omitempty"`
	// Version counts the alert's writes; storage writes a change only over
	// the version it was decided from, so a worker and an acknowledgement
	// that race cannot lose each other's step.
	Version int64 `json:"-"`
}

// AlertStatus is open or resolved.
type AlertStatus string

const (
	AlertOpen     AlertStatus = "open"
	AlertResolved AlertStatus = "resolved"
)

// AlertFigures are the replenishment figures of the last evaluation, kept
// with the alert so that a person reads the numbers it was raised on.
type AlertFigures struct {
	InventoryPosition int64   `json:"inventory_position"`
	SafetyStock       int64   `json:"safety_stock"`
	ReorderPoint      int64   `json:"reorder_point"`
	AlertLine         int64   `json:"alert_line"`
	SuggestedQuantity int64   `json:"suggested_quantity"`
	DemandMeanDaily   float64 `json:"demand_mean_daily"`
	LeadTimeDays      float64 `json:"lead_time_days"`
	// DaysOfCover is nil when stock sits with no demand (infinite cover).
	DaysOfCover *float64 `json:"days_of_cover"`
	Source      string   `json:"source"`
	Reason      string   `json:"reason"`
}

// AlertStep is one entry of an alert's level history.
type AlertStep struct {
	At    time.Time `json:"at"`
	Event string    `json:"event"`
	Level string    `json:"level"`
	Tier  int       `json:"tier"`
	KeyID string    `json:"key_id,omitempty"`
}

// Events of an alert's history (and of its notifications).
const (
	AlertRaised       = "raised"
	AlertEscalated    = "escalated"
	AlertAcknowledged = "acknowledged"
	AlertResolvedStep = "resolved"
)

// AlertHistoryMax bounds an alert's history: escalations stop at the last
// tier and an acknowledgement is recorded once, so an episode has few
// steps; the bound keeps a row of bounded size whatever happens.
const AlertHistoryMax = 64

// Appended returns the alert with step appended to its history, dropping
// the oldest step but the first beyond AlertHistoryMax.
func (a Alert) Appended(step AlertStep) Alert {
	history := append(append(make([]AlertStep, 0, len(a.History)+1), a.History...), step)
	if len(history) > AlertHistoryMax {
		history = append(history[:1], history[len(history)-AlertHistoryMax+1:]...)
	}
	a.History = history
	return a
}

// Acknowledged returns the alert acknowledged by keyID at now, or the
// alert unchanged if someone acknowledged it already: acknowledging twice
// is one acknowledgement, and the first key stays responsible.
func (a Alert) Acknowledged(keyID string, now time.Time) (Alert, bool) {
	if a.AckedAt != nil {
		return a, false
	}
	at := now.UTC().Truncate(time.Microsecond)
	a.AckedAt, a.AckedBy = &at, keyID
	return a.Appended(AlertStep{At: at, Event: AlertAcknowledged, Level: a.Level, Tier: a.Tier, KeyID: keyID}), true
}

// AlertNotice records one thing said about a SKU on one business date:
// kind sent (pushed to the sinks) or digest (listed in the daily digest
// only). Storage keeps one per (SKU, level, tier, business date, kind):
// that uniqueness is the dedup.
type AlertNotice struct {
	AlertID      int64     `json:"alert_id"`
	SKU          string    `json:"sku"`
	Level        string    `json:"level"`
	Tier         int       `json:"tier"`
	BusinessDate string    `json:"business_date"`
	Kind         string    `json:"kind"`
	At           time.Time `json:"at"`
}

// Kinds of notice (replenish.Notice's names).
const (
	AlertNoticeSent   = "sent"
	AlertNoticeDigest = "digest"
)

// AlertDelivery is one attempt to deliver a message to one sink: the
// delivery log.
type AlertDelivery struct {
	ID      int64     `json:"id"`
	AlertID int64     `json:"alert_id"`
	Sink    string    `json:"sink"`
	Attempt int       `json:"attempt"`
	At      time.Time `json:"at"`
	// StatusCode is the receiver's HTTP status; 0 when none answered.
	StatusCode int    `json:"status_code"`
	Delivered  bool   `json:"delivered"`
	Error      string `json:"error,omitempty"`
}

// ErrAlertChanged is what storage returns for an alert write decided from
// a version that is no longer the stored one: read again and decide again.
var ErrAlertChanged = errors.New("alert changed since it was read")
