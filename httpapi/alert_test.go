package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/store"
)

// seedAlert stores an alert as the alert worker would (package alert
// decides; the API only reads and acknowledges).
func (h *harness) seedAlert(sku, level string, status stockd.AlertStatus) stockd.Alert {
	h.t.Helper()
	now := h.clock.Now().UTC().Truncate(time.Microsecond)
	// The seed's worked example (d̄ 14.5, σ_d 3.6, L 7, 95 %: SS 16, ROP 118)
	// with 35 available: 30 days of cover call for 400 in multiples of 50.
	cover := 35 / 14.5
	a := stockd.Alert{SKU: sku, Condition: level, Level: level, Status: stockd.AlertOpen, Announced: true,
		Figures: stockd.AlertFigures{InventoryPosition: 35, SafetyStock: 16, ReorderPoint: 118, AlertLine: 118, SuggestedQuantity: 400,
			DemandMeanDaily: 14.5, LeadTimeDays: 7, DaysOfCover: &cover, Source: "history",
			Reason: "2.4 days of cover < lead time 7 days: an order placed now arrives after the stock runs out"},
		OpenedAt: now, ChangedAt: now, EvaluatedAt: now}
	a = a.Appended(stockd.AlertStep{At: now, Event: stockd.AlertRaised, Level: level})
	res, err := h.store.AlertWrite(h.t.Context(), store.AlertWriteParams{Save: &a})
	if err != nil {
		h.t.Fatal(err)
	}
	if status == stockd.AlertResolved {
		r := res.Saved
		r.Status, r.ResolvedAt, r.Resolution = stockd.AlertResolved, &now, "cleared"
		r = r.Appended(stockd.AlertStep{At: now, Event: stockd.AlertResolvedStep, Level: level})
		if res, err = h.store.AlertWrite(h.t.Context(), store.AlertWriteParams{Resolve: &r}); err != nil {
			h.t.Fatal(err)
		}
		r.Version++
		return r
	}
	return res.Saved
}

// exerciseAlerts drives the alert endpoints to every answer documented for
// them but those the sweeps over every route give (401, 403, 415, 429).
func exerciseAlerts(h *harness) stockd.Alert {
	h.t.Helper()
	old := h.seedAlert("ALA", "warning", stockd.AlertResolved)
	open := h.seedAlert("ALA", "critical", stockd.AlertOpen)
	h.seedAlert("ALB", "slow_moving", stockd.AlertOpen)
	id := strconv.FormatInt(open.ID, 10)
	for _, path := range []string{
		"/v1/alerts", "/v1/alerts?level=critical&status=open&sku=ALA", "/v1/alerts?after=" + strconv.FormatInt(old.ID, 10) + "&limit=1",
		"/v1/alerts/" + id, "/v1/alerts/" + id + "/deliveries",
	} {
		h.must("GET", path, "", "", http.StatusOK, nil)
	}
	for _, path := range []string{
		"/v1/alerts?level=red", "/v1/alerts?status=closed", "/v1/alerts?sku=a*b", "/v1/alerts?after=-1", "/v1/alerts?limit=1001",
		"/v1/alerts?acked=true", "/v1/alerts/x", "/v1/alerts/0", "/v1/alerts/" + id + "?fields=sku", "/v1/alerts/x/deliveries",
	} {
		h.must("GET", path, "", "", http.StatusBadRequest, nil)
	}
	h.must("GET", "/v1/alerts/999999", "", "", http.StatusNotFound, nil)
	h.must("GET", "/v1/alerts/999999/deliveries", "", "", http.StatusNotFound, nil)
	h.must("POST", "/v1/alerts/"+id+"/ack", "", "", http.StatusOK, nil)
	h.must("POST", "/v1/alerts/"+id+"/ack", "", "{}", http.StatusOK, nil)
	h.must("POST", "/v1/alerts/999999/ack", "", "", http.StatusNotFound, nil)
	h.must("POST", "/v1/alerts/x/ack", "", "", http.StatusBadRequest, nil)
	h.must("POST", "/v1/alerts/"+id+"/ack", "", `{"note":"mine"}`, http.StatusBadRequest, nil)
	h.must("POST", "/v1/alerts/"+id+"/ack", "", `{"n":"`+strings.Repeat("n", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	for fault, status := range map[string]int{faultInternal: http.StatusInternalServerError, faultCancelled: http.StatusServiceUnavailable} {
		for _, req := range [][2]string{{"GET", "/v1/alerts"}, {"GET", "/v1/alerts/" + id}, {"GET", "/v1/alerts/" + id + "/deliveries"}, {"POST", "/v1/alerts/" + id + "/ack"}} {
			if a := h.sendHeaders(req[0], req[1], nil, map[string]string{headerTestFault: fault}); a.status != status {
				h.t.Errorf("%s %s with fault %s: %d, want %d", req[0], req[1], fault, a.status, status)
			}
		}
	}
	return open
}

func TestAlerts(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		open := exerciseAlerts(h)
		c := NewClient(h.url, fastRetries)
		page, err := c.Alerts(t.Context(), AlertsParams{SKU: "ALA"})
		if err != nil || len(page.Alerts) != 2 || page.NextAfter != open.ID {
			t.Fatalf("alerts of ALA = %+v, %v; want 2, next_after %d", page, err, open.ID)
		}
		if page.Alerts[0].Status != stockd.AlertResolved || page.Alerts[0].Resolution != "cleared" || page.Alerts[1].Level != "critical" {
			t.Errorf("alerts of ALA = %+v; want the resolved warning, then the open critical", page.Alerts)
		}
		for _, tt := range []struct {
			p    AlertsParams
			want int
		}{
			{AlertsParams{}, 3},
			{AlertsParams{Status: "open"}, 2},
			{AlertsParams{Status: "resolved"}, 1},
			{AlertsParams{Level: "slow_moving"}, 1},
			{AlertsParams{Level: "critical", Status: "resolved"}, 0},
			{AlertsParams{After: open.ID}, 1},
			{AlertsParams{Limit: 1}, 1},
		} {
			page, err := c.Alerts(t.Context(), tt.p)
			if err != nil || len(page.Alerts) != tt.want {
				t.Errorf("Alerts(%+v) = %d alerts, %v; want %d", tt.p, len(page.Alerts), err, tt.want)
			}
		}
		// The harness's server is open (no keys yet): the acknowledgement
		// has a time and no key. Acknowledged once, it stays.
		a, err := c.Alert(t.Context(), open.ID)
		if err != nil || a.AckedAt == nil || a.History[len(a.History)-1].Event != stockd.AlertAcknowledged {
			t.Fatalf("alert after ack = %+v, %v; want acknowledged", a, err)
		}
		h.clock.Advance(time.Hour)
		again, err := c.AckAlert(t.Context(), open.ID)
		if err != nil || !again.AckedAt.Equal(*a.AckedAt) || len(again.History) != len(a.History) {
			t.Fatalf("second ack = %+v, %v; want the first unchanged", again, err)
		}
		if err := h.store.AlertDeliveryInsert(t.Context(), stockd.AlertDelivery{AlertID: open.ID, Sink: "ops", Attempt: 1, At: h.clock.Now().UTC(), StatusCode: 503, Error: "receiver answered 503"}); err != nil {
			t.Fatal(err)
		}
		log, err := c.AlertDeliveries(t.Context(), open.ID)
		if err != nil || len(log.Deliveries) != 1 || log.Deliveries[0].StatusCode != 503 || log.Deliveries[0].Delivered {
			t.Fatalf("deliveries of alert %d = %+v, %v; want the failed attempt", open.ID, log, err)
		}
		var problem *stockd.Error
		if _, err := c.Alert(t.Context(), 999999); !errors.As(err, &problem) || problem.Code != stockd.CodeNotFound {
			t.Fatalf("Alert(999999): %v, want not_found", err)
		}
	})
}

// TestAlertAckRecordsTheKey: with keys, the acknowledging key's id is
// recorded, and a key with read only may not acknowledge.
func TestAlertAckRecordsTheKey(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		open := h.seedAlert("ALK", "warning", stockd.AlertOpen)
		var admin, clerk, reader CreatedAPIKey
		h.must("POST", "/v1/keys", "", `{"name":"admin","scopes":["admin"]}`, http.StatusCreated, &admin)
		for _, k := range []struct {
			name, scope string
			out         *CreatedAPIKey
		}{{"clerk", "stock", &clerk}, {"reader", "read", &reader}} {
			a := h.expect("POST", "/v1/keys", `{"name":"`+k.name+`","scopes":["`+k.scope+`"]}`, http.StatusCreated, bearer(admin.Secret))
			if err := json.Unmarshal(a.body, k.out); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := NewClient(h.url, fastRetries, WithAPIKey(reader.Secret)).AckAlert(t.Context(), open.ID); err == nil {
			t.Fatal("a read key acknowledged an alert")
		}
		a, err := NewClient(h.url, fastRetries, WithAPIKey(clerk.Secret)).AckAlert(t.Context(), open.ID)
		if err != nil || a.AckedBy != clerk.ID {
			t.Fatalf("ack by clerk = %+v, %v; want acked_by %s", a, err, clerk.ID)
		}
		events, err := h.store.AuditEventList(t.Context(), store.AuditEventListParams{})
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for _, e := range events {
			found = found || (e.Action == "alert_ack" && e.KeyID == clerk.ID)
		}
		if !found {
			t.Errorf("audit trail %+v lacks the acknowledgement", events)
		}
	})
}
