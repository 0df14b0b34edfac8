package stockd

import "time"

// AuditEvent is one entry of the append-only audit trail: which key tried
// what, on what, and how it ended. Storage refuses to change or delete one.
type AuditEvent struct {
	ID int64     `json:"id"`
	At time.Time `json:"at"`
	// KeyID is the acting key; empty when no key acted (the command line).
	KeyID string `json:"key_id,omitempty"`
	// Action is what was tried: an operation name such as "key_create".
	Action string `json:"action"`
	// Resource is what it was tried on: a request path or a key id.
	Resource string `json:"resource,omitempty"`
	Outcome  string `json:"outcome"`
	Detail   string `json:"detail,omitempty"`
}

// Outcomes of audit events.
const (
	AuditOutcomeDone      = "done"
	AuditOutcomeForbidden = "forbidden"
)

// NewAuditEvent returns an event at now, its text fields cut to
// AuditTextLengthMax bytes.
func NewAuditEvent(now time.Time, keyID, action, resource, outcome, detail string) AuditEvent {
	return AuditEvent{
		At:       now.UTC().Truncate(time.Microsecond),
		KeyID:    cut(keyID),
		Action:   cut(action),
		Resource: cut(resource),
		Outcome:  cut(outcome),
		Detail:   cut(detail),
	}
}

// cut bounds s to AuditTextLengthMax bytes without splitting a UTF-8
// sequence.
func cut(s string) string {
	if len(s) <= AuditTextLengthMax {
		return s
	}
	end := AuditTextLengthMax
	for end > 0 && s[end]&0xc0 == 0x80 {
		end--
	}
	return s[:end]
}
