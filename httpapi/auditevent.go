package httpapi

import (
	"net/http"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

func (s *Server) auditEventRoutes() []route {
	return []route{
		// The trail names keys and what they were refused: an admin's to
		// read, as the keys themselves are.
		{"GET /v1/audit-events", "audit_event_list", stockd.ScopeAdmin, s.listAuditEvents},
	}
}

// AuditEvent is one entry of the audit trail: a key created or revoked, a
// request refused for its scope.
type AuditEvent struct {
	ID       int64     `json:"id"`
	At       time.Time `json:"at"`
	KeyID    string    `json:"key_id,omitempty"`
	Action   string    `json:"action"`
	Resource string    `json:"resource,omitempty"`
	Outcome  string    `json:"outcome"`
	Detail   string    `json:"detail,omitempty"`
}

// AuditEventList is one page of GET /v1/audit-events. NextAfter is the
// cursor for the next page: the last event's id, or the request's after
// when the page is empty.
type AuditEventList struct {
	Events    []AuditEvent `json:"events"`
	NextAfter int64        `json:"next_after"`
}

func (s *Server) listAuditEvents(w http.ResponseWriter, r *http.Request) {
	page, verr := pageParams(r.URL.Query())
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	events, err := s.store.AuditEventList(r.Context(), store.AuditEventListParams{After: page.After, Limit: page.Limit})
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := AuditEventList{Events: make([]AuditEvent, 0, len(events)), NextAfter: page.After}
	for _, e := range events {
		out.Events = append(out.Events, AuditEvent{ID: e.ID, At: e.At.UTC(), KeyID: e.KeyID, Action: e.Action, Resource: e.Resource, Outcome: e.Outcome, Detail: e.Detail})
		out.NextAfter = e.ID
	}
	writeJSON(w, http.StatusOK, out)
}
