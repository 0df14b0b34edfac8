package dashboard

import (
	"net/http"
	"strconv"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/store"
)

// alertsPageSize is the alerts list's page, and discrepanciesPageSize the
// discrepancies'.
const (
	alertsPageSize        = 50
	discrepanciesPageSize = 50
)

type alertsPage struct {
	Status    string
	Alerts    []stockd.Alert
	After     int64
	NextAfter int64
	Acked     int64
}

// alertStatuses are the list's filters: open (the default), resolved, all.
var alertStatuses = map[string]stockd.AlertStatus{"open": stockd.AlertOpen, "resolved": stockd.AlertResolved, "all": ""}

func (h *Handler) alerts(w http.ResponseWriter, r *http.Request, v *visitor) {
	q := r.URL.Query()
	page := alertsPage{Status: q.Get("status")}
	if page.Status == "" {
		page.Status = "open"
	}
	status, ok := alertStatuses[page.Status]
	after, aerr := cursor(q.Get("after"))
	acked, kerr := cursor(q.Get("acked"))
	if !ok || aerr != nil || kerr != nil {
		h.fail(w, r, v, http.StatusBadRequest, "The status must be open, resolved or all, and cursors numbers.")
		return
	}
	page.After, page.Acked = after, acked
	list, err := h.store.AlertList(r.Context(), store.AlertListParams{Status: status, After: after, Limit: alertsPageSize + 1})
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	if len(list) > alertsPageSize {
		list = list[:alertsPageSize]
		page.NextAfter = list[len(list)-1].ID
	}
	page.Alerts = list
	h.render(w, r, v, http.StatusOK, "alerts", page)
}

// ackAlert is the dashboard's acknowledge button: the scope the API's
// POST /v1/alerts/{id}/ack needs, and the same code (httpapi.AckAlert),
// so that an acknowledgement from either is recorded and audited alike.
func (h *Handler) ackAlert(w http.ResponseWriter, r *http.Request, v *visitor) {
	if !v.Can(stockd.ScopeStock) {
		h.fail(w, r, v, http.StatusForbidden, "Acknowledging an alert needs a key with the stock scope.")
		return
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id < 1 {
		h.fail(w, r, v, http.StatusBadRequest, "An alert id is a positive number.")
		return
	}
	_, err = httpapi.AckAlert(r.Context(), h.store, h.logger, store.AlertAckParams{ID: id, KeyID: v.Key.ID, At: h.now()}, r.URL.Path)
	if isNotFound(err) {
		h.fail(w, r, v, http.StatusNotFound, "There is no alert "+strconv.FormatInt(id, 10)+".")
		return
	}
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	// Post, redirect, get: a reload does not send the form again.
	http.Redirect(w, r, basePath+"/alerts?acked="+strconv.FormatInt(id, 10), http.StatusSeeOther)
}

type discrepanciesPage struct {
	Status        string
	Discrepancies []stockd.Discrepancy
	After         int64
	NextAfter     int64
}

func (h *Handler) discrepancies(w http.ResponseWriter, r *http.Request, v *visitor) {
	q := r.URL.Query()
	page := discrepanciesPage{Status: q.Get("status")}
	if page.Status == "" {
		page.Status = stockd.DiscrepancyOpen
	}
	after, err := cursor(q.Get("after"))
	if err != nil || page.Status != stockd.DiscrepancyOpen && page.Status != stockd.DiscrepancyClosed && page.Status != "all" {
		h.fail(w, r, v, http.StatusBadRequest, "The status must be open, closed or all, and the cursor a number.")
		return
	}
	status := page.Status
	if status == "all" {
		status = ""
	}
	page.After = after
	list, err := h.store.DiscrepancyList(r.Context(), store.DiscrepancyListParams{Status: status, After: after, Limit: discrepanciesPageSize + 1})
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	if len(list) > discrepanciesPageSize {
		list = list[:discrepanciesPageSize]
		page.NextAfter = list[len(list)-1].ID
	}
	page.Discrepancies = list
	h.render(w, r, v, http.StatusOK, "discrepancies", page)
}

// cursor reads an id cursor; empty is 0.
func cursor(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, strconv.ErrSyntax
	}
	return n, nil
}
