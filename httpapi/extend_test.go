package httpapi

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/internal/testdb"
)

// TestExtend runs exerciseExtend on its own.
func TestExtend(t *testing.T) {
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		h := newHarness(t, b)
		h.seed(10, "EXT")
		exerciseExtend(h)
	})
}

// exerciseExtend: a pending hold's deadline moves later, never earlier,
// never past ReservationHoldMax from its creation; a retry replays; a hold
// past its deadline expires instead; a confirmed one cannot be extended.
// The store keeps the new deadline, which the expiry worker reads. It
// needs stock of SKU EXT.
func exerciseExtend(h *harness) {
	t := h.t
	t.Helper()
	var r Reservation
	h.must("POST", "/v1/reservations", "ext-r", `{"lines":[{"sku":"EXT","quantity":1}],"ttl_seconds":60}`, http.StatusCreated, &r)
	path := "/v1/reservations/" + r.ID + "/extend"
	var longer Reservation
	h.must("POST", path, "ext-1", `{"ttl_seconds":3600}`, http.StatusOK, &longer)
	if !longer.ExpiresAt.After(r.ExpiresAt.Add(50 * time.Minute)) {
		t.Fatalf("extended deadline %v, was %v", longer.ExpiresAt, r.ExpiresAt)
	}
	var again Reservation
	if a := h.must("POST", path, "ext-1", `{"ttl_seconds":3600}`, http.StatusOK, &again); a.header.Get(headerReplayed) != "true" || !again.ExpiresAt.Equal(longer.ExpiresAt) {
		t.Fatalf("retry: %+v replayed %q, want the first answer", again, a.header.Get(headerReplayed))
	}
	var shorter Reservation
	h.must("POST", path, "ext-2", `{"ttl_seconds":60}`, http.StatusOK, &shorter)
	if !shorter.ExpiresAt.Equal(longer.ExpiresAt) {
		t.Fatalf("a shorter extension moved the deadline to %v from %v", shorter.ExpiresAt, longer.ExpiresAt)
	}
	stored, err := h.store.ReservationGet(t.Context(), r.ID)
	if err != nil || !stored.ExpiresAt.Equal(longer.ExpiresAt) {
		t.Fatalf("stored deadline %v (%v), want %v", stored.ExpiresAt, err, longer.ExpiresAt)
	}
	// Kept alive a day at a time, up to the week a hold may last.
	day := int64(stockd.ReservationTTLMax / time.Second)
	for i := range 7 {
		h.clock.Advance(50 * time.Minute)
		if i > 0 {
			h.clock.Advance(22 * time.Hour)
		}
		h.must("POST", path, "ext-day-"+strconv.Itoa(i), `{"ttl_seconds":`+strconv.FormatInt(day, 10)+`}`, http.StatusOK, nil)
	}
	h.clock.Advance(23 * time.Hour)
	h.must("POST", path, "ext-too-long", `{"ttl_seconds":`+strconv.FormatInt(day, 10)+`}`, http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	h.must("POST", path, "ext-zero", `{"ttl_seconds":0}`, http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	h.must("POST", path, "ext-none", `{}`, http.StatusBadRequest, nil).wantCode(t, stockd.CodeInvalidInput)
	h.clock.Advance(2 * time.Hour)
	h.must("POST", path, "ext-late", `{"ttl_seconds":60}`, http.StatusConflict, nil).wantCode(t, stockd.CodeReservationExpired)

	var paid Reservation
	h.must("POST", "/v1/reservations", "ext-paid", `{"lines":[{"sku":"EXT","quantity":1}],"commit":true}`, http.StatusCreated, &paid)
	h.must("POST", "/v1/reservations/"+paid.ID+"/extend", "ext-paid-1", `{"ttl_seconds":60}`, http.StatusConflict, nil).wantCode(t, stockd.CodeInvalidTransition)
	h.must("POST", "/v1/reservations/nope/extend", "ext-nope", `{"ttl_seconds":60}`, http.StatusNotFound, nil).wantCode(t, stockd.CodeNotFound)
}
