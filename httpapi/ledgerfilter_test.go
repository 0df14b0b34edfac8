package httpapi

import (
	"net/http"
	"net/url"
)

// exerciseLedgerFilters: GET /v1/ledger by business type, business
// document, reservation, location and time, on what exerciseBusinessNumbers
// booked.
func exerciseLedgerFilters(h *harness) {
	h.t.Helper()
	var res Reservation
	h.must("POST", "/v1/reservations", "lf-order", `{"order_id":"SO-LF","lines":[{"sku":"BN","quantity":1}]}`, http.StatusCreated, &res)
	h.must("POST", "/v1/reservations/"+res.ID+"/confirm", "lf-confirm", "", http.StatusOK, nil)
	page := func(query string) []LedgerEntry {
		h.t.Helper()
		var p LedgerPage
		h.must("GET", "/v1/ledger?"+query, "", "", http.StatusOK, &p)
		return p.Entries
	}
	if got := page("type=receipt&business_id=bn-dn-1"); len(got) != 1 || got[0].Reference != "PO-777" || got[0].Type != "receipt" {
		h.t.Fatalf("the receipt of PO-777 = %+v, want its one entry", got)
	}
	got := page("reservation_id=" + res.ID)
	if len(got) != 2 || got[0].Type != "reserve" || got[1].Type != "confirm" {
		h.t.Fatalf("entries of %s = %+v, want reserve then confirm", res.ID, got)
	}
	if got := page("reservation_id=" + res.ID + "&type=confirm&sku=BN&location=default"); len(got) != 1 || got[0].Seq != page("reservation_id=" + res.ID)[1].Seq {
		h.t.Fatalf("confirm of %s = %+v", res.ID, got)
	}
	at := got[1].CreatedAt
	window := "from=" + url.QueryEscape(at.Format("2006-01-02T15:04:05.999999Z07:00")) + "&to=" + url.QueryEscape(at.Add(1e3).Format("2006-01-02T15:04:05.999999Z07:00"))
	for _, e := range page(window + "&limit=1000") {
		if !e.CreatedAt.Equal(at) {
			h.t.Fatalf("entry %d at %v is outside [%v, %v+1µs)", e.Seq, e.CreatedAt, at, at)
		}
	}
	if got := page("location=nowhere"); len(got) != 0 {
		h.t.Fatalf("entries at an unknown location = %+v", got)
	}
}
