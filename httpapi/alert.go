package httpapi

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// alertRoutes: reading alerts needs read; acknowledging one is taking
// responsibility for stock, so it needs stock.
func (s *Server) alertRoutes() []route {
	return []route{
		{"GET /v1/alerts", "alert_list", stockd.ScopeRead, s.listAlerts},
		{"GET /v1/alerts/{id}", "alert_get", stockd.ScopeRead, s.getAlert},
		{"GET /v1/alerts/{id}/deliveries", "alert_delivery_list", stockd.ScopeRead, s.listAlertDeliveries},
		{"POST /v1/alerts/{id}/ack", "alert_ack", stockd.ScopeStock, s.ackAlert},
	}
}

// Alert is one episode of a SKU at a level, with its figures, level
// history, acknowledgement and resolution (stockd.Alert).
type Alert = stockd.Alert

// AlertDeliveryList is the delivery log of one alert: every attempt to
// every sink, oldest first.
type AlertDeliveryList struct {
	Deliveries []stockd.AlertDelivery `json:"deliveries"`
}

// AlertPage is one page of GET /v1/alerts. NextAfter is the cursor of the
// next page: the last alert's id, or the request's after when empty.
type AlertPage struct {
	Alerts    []Alert `json:"alerts"`
	NextAfter int64   `json:"next_after"`
}

// alertLevels are the levels an alert can have (replenish.Level but ok).
var alertLevels = []string{"slow_moving", "warning", "critical", "stockout"}

func (s *Server) listAlerts(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	page, verr := pageParams(q)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	p := store.AlertListParams{After: page.After, Limit: page.Limit}
	if q.Has("level") {
		p.Level = q.Get("level")
		if !slices.Contains(alertLevels, p.Level) {
			writeProblem(w, stockd.InvalidField("level", "must be one of %q", alertLevels))
			return
		}
	}
	if q.Has("status") {
		p.Status = stockd.AlertStatus(q.Get("status"))
		if p.Status != stockd.AlertOpen && p.Status != stockd.AlertResolved {
			writeProblem(w, stockd.InvalidField("status", "must be open or resolved"))
			return
		}
	}
	if q.Has("sku") {
		p.SKU = q.Get("sku")
		if !stockd.ValidIdentifier(p.SKU) {
			writeProblem(w, stockd.InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", stockd.IdentifierLengthMax))
			return
		}
	}
	alerts, err := s.store.AlertList(r.Context(), p)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := AlertPage{Alerts: make([]Alert, 0, len(alerts)), NextAfter: p.After}
	for _, a := range alerts {
		out.Alerts = append(out.Alerts, a)
		out.NextAfter = a.ID
	}
	writeJSON(w, http.StatusOK, out)
}

// alertID reads the path's alert id: a positive integer.
func alertID(r *http.Request) (int64, *stockd.Error) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		return 0, stockd.InvalidField("id", "must be a positive integer")
	}
	return id, nil
}

func (s *Server) getAlert(w http.ResponseWriter, r *http.Request) {
	id, verr := alertID(r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	a, err := s.store.AlertGet(r.Context(), id)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "no alert %d", id))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// ackAlert records which key took the alert on. It is idempotent by
// nature, like a key's revocation: the first acknowledgement stands and a
// second answers the alert unchanged, so it takes no Idempotency-Key.
// Acknowledging stops the alert's escalation.
func (s *Server) ackAlert(w http.ResponseWriter, r *http.Request) {
	// The body first: a form body is 415 whatever the path says.
	body, verr := readBody(w, r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	if verr := decodeOptional(body, &emptyRequest{}); verr != nil {
		writeProblem(w, verr)
		return
	}
	id, verr := alertID(r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	a, err := AckAlert(r.Context(), s.store, s.logger, store.AlertAckParams{ID: id, KeyID: actingKeyID(r), At: s.now()}, r.URL.Path)
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "no alert %d", id))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, a)
}

// AckAlert acknowledges an alert and writes the audit event: what
// POST /v1/alerts/{id}/ack does, and the dashboard's acknowledge button
// through the same code. target is the path the request came to.
func AckAlert(ctx context.Context, st store.Store, logger *slog.Logger, p store.AlertAckParams, target string) (stockd.Alert, error) {
	a, err := st.AlertAck(ctx, p)
	if err != nil {
		return stockd.Alert{}, err
	}
	writeAudit(ctx, st, logger, stockd.NewAuditEvent(p.At, p.KeyID, "alert_ack", target, stockd.AuditOutcomeDone,
		fmt.Sprintf("alert %d of %s acknowledged by %q", a.ID, a.SKU, a.AckedBy)))
	return a, nil
}

// listAlertDeliveries answers where an alert's messages went: the first
// place to look when "the alert never came".
func (s *Server) listAlertDeliveries(w http.ResponseWriter, r *http.Request) {
	id, verr := alertID(r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	if _, err := s.store.AlertGet(r.Context(), id); errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "no alert %d", id))
		return
	} else if err != nil {
		s.failure(w, r, err)
		return
	}
	deliveries, err := s.store.AlertDeliveryList(r.Context(), id)
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := AlertDeliveryList{Deliveries: make([]stockd.AlertDelivery, 0, len(deliveries))}
	out.Deliveries = append(out.Deliveries, deliveries...)
	writeJSON(w, http.StatusOK, out)
}
