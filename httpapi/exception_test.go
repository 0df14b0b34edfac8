package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/internal/testdb"
)

// TestLatePayment runs the late payment both ways, the exceptions'
// listing order and their resolution over HTTP and through the Go client.
func TestLatePayment(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		exerciseExceptions(h)
		exerciseExceptionsClient(h)
	})
}

// exerciseExceptions: a late confirm with on_late re_reserve and stock
// confirms again (200 re_reserved, books clean); with the stock gone it
// records an exception and answers 409 naming it, as the default does; a
// retry under another key names the same; the exceptions list in
// handling order, read and resolve with a note. Every answer the
// exception endpoints and the confirm's late fields document.
func exerciseExceptions(h *harness) {
	h.t.Helper()
	t := h.t
	h.seed(4, "LATE")
	var r1, r2, r0 Reservation
	h.must("POST", "/v1/reservations", "late-r1", `{"lines":[{"sku":"LATE","quantity":2}],"ttl_seconds":60}`, http.StatusCreated, &r1)
	h.must("POST", "/v1/reservations", "late-r2", `{"lines":[{"sku":"LATE","quantity":1}],"ttl_seconds":60}`, http.StatusCreated, &r2)
	h.must("POST", "/v1/reservations", "late-r0", `{"lines":[{"sku":"LATE","quantity":1}],"ttl_seconds":60}`, http.StatusCreated, &r0)
	h.clock.Advance(61 * time.Second)
	now := h.clock.Now().UTC()
	confirm := func(id string) string { return "/v1/reservations/" + id + "/confirm" }

	// re_reserve, the stock there.
	body := fmt.Sprintf(`{"on_late":"re_reserve","payment_reference":"pay-1","paid_at":%q}`, now.Add(-30*time.Second).Format(time.RFC3339))
	var again Reservation
	h.must("POST", confirm(r1.ID), "late-confirm-1", body, http.StatusOK, &again)
	if !again.ReReserved || again.Status != "confirmed" {
		t.Fatalf("re_reserve = %+v, want confirmed re_reserved", again)
	}
	if a := h.must("POST", confirm(r1.ID), "late-confirm-1", body, http.StatusOK, &again); !again.ReReserved || a.header.Get(headerReplayed) != "true" {
		t.Fatalf("replay = %+v, want re_reserved replayed", again)
	}

	// r2 expires, another order takes what came back: re_reserve is short.
	if res, err := h.server.engine.Submit(context.Background(), stockd.Command{Op: &stockd.Transition{Action: stockd.KindExpire, ReservationID: r2.ID}}); err != nil || res.Err != nil {
		t.Fatalf("expire %s: %v %v", r2.ID, err, res.Err)
	}
	h.must("POST", "/v1/reservations", "late-r3", `{"lines":[{"sku":"LATE","quantity":1}]}`, http.StatusCreated, nil)
	a := h.must("POST", confirm(r2.ID), "late-confirm-2", `{"on_late":"re_reserve","payment_reference":"pay-2"}`, http.StatusConflict, nil)
	a.wantCode(t, stockd.CodeReservationExpired)
	short := a.problem(t).ExceptionID
	if short == "" {
		t.Fatalf("409 %s names no exception_id", a.body)
	}
	var exc Exception
	h.must("GET", "/v1/exceptions/"+short, "", "", http.StatusOK, &exc)
	if exc.Kind != stockd.ExceptionLatePayment || exc.Status != "open" || exc.Code != stockd.CodeInsufficientStock || exc.PaymentReference != "pay-2" ||
		exc.ReservationID != r2.ID || len(exc.Lines) != 1 || exc.Lines[0].Quantity != 1 {
		t.Fatalf("exception = %+v", exc)
	}
	// A retry under another key, whatever it asks, names the same.
	if p := h.must("POST", confirm(r2.ID), "late-confirm-2b", "", http.StatusConflict, nil).problem(t); p.ExceptionID != short {
		t.Fatalf("retry named %q, want %s", p.ExceptionID, short)
	}
	// The default, paid before the first exception was recorded: it lists
	// first.
	a = h.must("POST", confirm(r0.ID), "late-confirm-0", fmt.Sprintf(`{"paid_at":%q}`, now.Add(-40*time.Second).Format(time.RFC3339)), http.StatusConflict, nil)
	paidFirst := a.problem(t).ExceptionID
	if paidFirst == "" || paidFirst >= short {
		t.Fatalf("default exception %q, want one sorting before %s", paidFirst, short)
	}
	if rep, err := audit.Verify(context.Background(), h.store); err != nil || !rep.Clean() {
		t.Fatalf("verify: %+v, %v", rep, err)
	}

	// Listing: handling order, filters, cursor (other tests' exceptions
	// may share the server, so positions are relative).
	var page ExceptionPage
	h.must("GET", "/v1/exceptions?kind=late_payment&status=open&limit=1000", "", "", http.StatusOK, &page)
	at := map[string]int{}
	for i, e := range page.Exceptions {
		at[e.ID] = i + 1
	}
	if at[paidFirst] == 0 || at[short] == 0 || at[paidFirst] > at[short] || page.NextAfter != page.Exceptions[len(page.Exceptions)-1].ID {
		t.Fatalf("open late payments = %+v, want %s before %s", page, paidFirst, short)
	}
	h.must("GET", "/v1/exceptions?kind=late_payment&limit=1&after="+paidFirst, "", "", http.StatusOK, &page)
	if len(page.Exceptions) != 1 || page.Exceptions[0].ID != short || page.NextAfter != short {
		t.Fatalf("page after %s = %+v, want %s", paidFirst, page, short)
	}
	for _, bad := range []string{"?kind=late", "?status=closed", "?limit=0", "?after=a%20b"} {
		h.must("GET", "/v1/exceptions"+bad, "", "", http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	}
	h.must("GET", "/v1/exceptions/a%20b", "", "", http.StatusBadRequest, nil)
	h.must("GET", "/v1/exceptions/nope", "", "", http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)

	// Resolve: a note, once.
	resolve := "/v1/exceptions/" + short + "/resolve"
	h.must("POST", resolve, "late-resolve-1", `{"note":"refunded pay-2"}`, http.StatusOK, &exc)
	if exc.Status != "resolved" || exc.Note != "refunded pay-2" || exc.ResolvedAt == nil {
		t.Fatalf("resolved = %+v", exc)
	}
	if a := h.must("POST", resolve, "late-resolve-1", `{"note":"refunded pay-2"}`, http.StatusOK, nil); a.header.Get(headerReplayed) != "true" {
		t.Fatalf("resolve replay not marked")
	}
	h.must("POST", resolve, "late-resolve-2", `{"note":"other"}`, http.StatusOK, &exc)
	if exc.Note != "refunded pay-2" {
		t.Fatalf("second resolve = %+v, want the first note", exc)
	}
	h.must("POST", resolve, "late-resolve-1", `{"note":"changed"}`, http.StatusUnprocessableEntity, nil).wantCode(t, stockd.CodeIdempotencyKeyReused)
	h.must("POST", resolve, "late-resolve-empty", `{"note":""}`, http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	h.must("POST", resolve, "late-resolve-none", `{}`, http.StatusBadRequest, nil)
	h.must("POST", resolve, "", `{"note":"x"}`, http.StatusBadRequest, nil)
	h.must("POST", resolve, "late-resolve-large", `{"note":"`+strings.Repeat("n", stockd.BodySizeMax)+`"}`, http.StatusRequestEntityTooLarge, nil)
	h.must("POST", "/v1/exceptions/nope/resolve", "late-resolve-unknown", `{"note":"x"}`, http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
	h.must("GET", "/v1/exceptions?status=resolved&after="+paidFirst, "", "", http.StatusOK, &page)
	if len(page.Exceptions) == 0 || page.Exceptions[0].ID != short {
		t.Fatalf("resolved = %+v, want %s", page, short)
	}

	// The confirm's late fields, refused.
	for key, body := range map[string]string{
		"late-bad-on-late": `{"on_late":"later"}`,
		"late-bad-ref":     `{"payment_reference":"` + strings.Repeat("r", stockd.PaymentReferenceLengthMax+1) + `"}`,
		"late-bad-paid":    fmt.Sprintf(`{"paid_at":%q}`, now.Add(time.Hour).Format(time.RFC3339)),
	} {
		h.must("POST", confirm(r0.ID), key, body, http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	}

	// The store and the engine failing.
	for fault, status := range map[string]int{faultInternal: http.StatusInternalServerError, faultDown: http.StatusServiceUnavailable} {
		hdr := map[string]string{headerTestFault: fault}
		for _, path := range []string{"/v1/exceptions", "/v1/exceptions/" + short} {
			if a := h.sendHeaders("GET", path, nil, hdr); a.status != status {
				t.Fatalf("GET %s with %s: %d; want %d", path, fault, a.status, status)
			}
		}
		hdr[headerIdempotencyKey] = "late-fault-" + fault
		if a := h.sendHeaders("POST", resolve, []byte(`{"note":"x"}`), hdr); a.status != status {
			t.Fatalf("POST %s with %s: %d; want %d", resolve, fault, a.status, status)
		}
	}
}

// exerciseExceptionsClient: the Go client's late confirm and exception
// calls against the same server.
func exerciseExceptionsClient(h *harness) {
	h.t.Helper()
	t := h.t
	ctx := context.Background()
	c := NewClient(h.url, fastRetries)
	h.seed(1, "LATEC")
	var r Reservation
	h.must("POST", "/v1/reservations", "latec-r", `{"lines":[{"sku":"LATEC","quantity":1}],"ttl_seconds":1}`, http.StatusCreated, &r)
	h.clock.Advance(2 * time.Second)
	paid := h.clock.Now().Add(-time.Second)
	got, err := c.Confirm(ctx, ConfirmParams{ID: r.ID, OnLate: "re_reserve", PaymentReference: "pay-c", PaidAt: &paid})
	if err != nil || !got.ReReserved {
		t.Fatalf("client late confirm = %+v, %v; want re_reserved", got, err)
	}
	h.must("POST", "/v1/reservations", "latec-r2", `{"lines":[{"sku":"LATEC","quantity":1}],"ttl_seconds":1}`, http.StatusConflict, nil)
	h.must("POST", "/v1/receipts", "latec-receipt", `{"sku":"LATEC","quantity":1}`, http.StatusOK, nil)
	h.must("POST", "/v1/reservations", "latec-r3", `{"lines":[{"sku":"LATEC","quantity":1}],"ttl_seconds":1}`, http.StatusCreated, &r)
	h.clock.Advance(2 * time.Second)
	_, err = c.Confirm(ctx, ConfirmParams{ID: r.ID, PaymentReference: "pay-d"})
	var se *stockd.Error
	if !errors.As(err, &se) || se.Code != stockd.CodeReservationExpired || se.ExceptionID == "" {
		t.Fatalf("client default late confirm: %v, want reservation_expired naming an exception", err)
	}
	page, err := c.Exceptions(ctx, ExceptionsParams{Kind: stockd.ExceptionLatePayment, After: se.ExceptionID[:18], Limit: 10})
	if err != nil || len(page.Exceptions) == 0 || page.Exceptions[len(page.Exceptions)-1].ID != se.ExceptionID {
		t.Fatalf("client Exceptions = %+v, %v; want %s last", page, err, se.ExceptionID)
	}
	e, err := c.Exception(ctx, se.ExceptionID)
	if err != nil || e.PaymentReference != "pay-d" {
		t.Fatalf("client Exception = %+v, %v", e, err)
	}
	e, err = c.ResolveException(ctx, ResolveExceptionParams{ID: se.ExceptionID, Note: "refunded"})
	if err != nil || e.Status != "resolved" {
		t.Fatalf("client ResolveException = %+v, %v", e, err)
	}
}
