package stockd

import (
	"encoding/json"
	"slices"
	"testing"
	"time"
)

func lateConfirm(key, id, onLate, ref string, paidAt *time.Time) Command {
	c := Command{IdempotencyKey: key, RequestHash: key, Actor: "shop",
		Op: &Transition{Action: KindConfirm, ReservationID: id, OnLate: onLate, PaymentReference: ref, PaidAt: paidAt}}
	if err := c.Normalize(); err != nil {
		panic(err)
	}
	return c
}

// TestLateConfirm decides a confirm after the deadline under each policy
// and stock: re_reserve with the stock there confirms again and books
// re_reserve then confirm; without it, or by default, an exception is
// recorded and named.
func TestLateConfirm(t *testing.T) {
	paid := t0.Add(ReservationTTLDefault - time.Minute)
	for _, tc := range []struct {
		name       string
		onLate     string
		takenAfter int64 // taken by another order once the first expired
		wantCode   string
		wantCause  string
		wantLedger []string
	}{
		{name: "re_reserve with stock", onLate: OnLateReReserve, wantLedger: []string{BusinessExpire, BusinessReReserve, BusinessConfirm}},
		{name: "re_reserve short", onLate: OnLateReReserve, takenAfter: 2, wantCode: CodeReservationExpired, wantCause: CodeInsufficientStock, wantLedger: []string{BusinessExpire}},
		{name: "default", onLate: "", wantCode: CodeReservationExpired, wantCause: CodeReservationExpired, wantLedger: []string{BusinessExpire}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newState(map[PositionKey]int64{pk("a", "w1"): 3})
			id := s.Apply([]Command{reserve("k", LineRequest{SKU: "a", Quantity: 2, Location: "w1"})})[0].Reservation.ID
			s.Now = s.Now.Add(ReservationTTLDefault)
			s.writes.Ledger = nil
			s.Apply([]Command{{Op: &Transition{Action: KindExpire, ReservationID: id}}})
			if tc.takenAfter > 0 {
				if r := s.Apply([]Command{reserve("other", LineRequest{SKU: "a", Quantity: tc.takenAfter, Location: "w1"})}); r[0].Err != nil {
					t.Fatalf("other: %v", r[0].Err)
				}
			}
			r := s.Apply([]Command{lateConfirm("c1", id, tc.onLate, "pay-1", &paid)})[0]
			var types []string
			for _, e := range s.writes.Ledger {
				if e.ReservationID == id {
					types = append(types, e.BusinessType)
				}
			}
			if len(types) != len(tc.wantLedger) {
				t.Fatalf("ledger of %s = %v, want %v", id, types, tc.wantLedger)
			}
			for i := range types {
				if types[i] != tc.wantLedger[i] {
					t.Fatalf("ledger of %s = %v, want %v", id, types, tc.wantLedger)
				}
			}
			if tc.wantCode == "" {
				if r.Err != nil || !r.ReReserved || r.Reservation.Status != StatusConfirmed {
					t.Fatalf("confirm = %+v, want confirmed re_reserved", r)
				}
				if got := *s.Positions[pk("a", "w1")]; got.Committed != 2 || got.Reserved != 0 {
					t.Fatalf("counters = %+v, want 2 committed", got)
				}
				if len(s.writes.Exceptions) != 0 {
					t.Fatalf("exceptions = %+v, want none", s.writes.Exceptions)
				}
				return
			}
			if r.Err == nil || r.Err.Code != tc.wantCode || r.Err.ExceptionID == "" {
				t.Fatalf("confirm = %+v, want %s naming an exception", r.Err, tc.wantCode)
			}
			if len(s.writes.Exceptions) != 1 {
				t.Fatalf("exceptions = %+v, want one", s.writes.Exceptions)
			}
			e := s.writes.Exceptions[0]
			if e.ID != r.Err.ExceptionID || e.Kind != ExceptionLatePayment || e.Status != ExceptionOpen || e.Code != tc.wantCause ||
				e.PaymentReference != "pay-1" || e.PaidAt == nil || !e.PaidAt.Equal(paid) || e.ReservationID != id {
				t.Fatalf("exception = %+v", e)
			}
			if e.ID != ExceptionID(paid, "r"+e.ID[len(e.ID)-1:]) {
				t.Fatalf("id %s does not start with the payment time", e.ID)
			}
			// A retry under another key finds the same exception.
			again := s.Apply([]Command{lateConfirm("c2", id, tc.onLate, "pay-2", nil)})[0]
			if again.Err == nil || again.Err.ExceptionID != e.ID || len(s.writes.Exceptions) != 1 {
				t.Fatalf("retry = %+v, want exception %s again", again.Err, e.ID)
			}
		})
	}
}

// TestExceptionResolve resolves with a note once; a second resolve
// answers the first unchanged, an empty note is refused.
func TestExceptionResolve(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 3})
	id := s.Apply([]Command{reserve("k", LineRequest{SKU: "a", Quantity: 1})})[0].Reservation.ID
	s.Now = s.Now.Add(ReservationTTLDefault)
	exc := s.Apply([]Command{lateConfirm("c1", id, "", "", nil)})[0].Err.ExceptionID
	if exc == "" || exc != ExceptionID(s.Now, "r2") {
		t.Fatalf("exception id %q, want the creation time's", exc)
	}
	bad := Command{IdempotencyKey: "r0", Op: &ExceptionResolve{ID: exc}}
	if err := bad.Normalize(); err == nil || err.Field != "note" {
		t.Fatalf("empty note: %v, want invalid note", err)
	}
	resolve := func(key, note string) Exception {
		c := Command{IdempotencyKey: key, RequestHash: key, Actor: "ops", Op: &ExceptionResolve{ID: exc, Note: note}}
		if err := c.Normalize(); err != nil {
			t.Fatal(err)
		}
		r := s.Apply([]Command{c})[0]
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		var e Exception
		if err := json.Unmarshal(r.Object, &e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	first := resolve("r1", "refunded")
	if first.Status != ExceptionResolved || first.Note != "refunded" || first.ResolvedBy != "ops" || first.ResolvedAt == nil {
		t.Fatalf("resolved = %+v", first)
	}
	second := resolve("r2", "again")
	if second.Note != "refunded" {
		t.Fatalf("second resolve = %+v, want the first note", second)
	}
	w := s.Writes()
	if len(w.ExceptionsUpdated) != 1 {
		t.Fatalf("updated = %+v, want one", w.ExceptionsUpdated)
	}
	// The record and its resolution each tell of themselves once on the
	// ledger, in the batch that decided them, at the SKU of its line.
	events := map[string][]PositionKey{}
	for _, e := range w.Ledger {
		if EventOnly(e.BusinessType) {
			if e.Delta != (Counters{}) {
				t.Fatalf("event %+v moves stock", e)
			}
			events[e.BusinessID] = append(events[e.BusinessID], e.Position)
		}
	}
	for _, id := range []string{NoticeException + ":" + exc, NoticeExceptionResolved + ":" + exc} {
		if keys := events[id]; !slices.Equal(keys, []PositionKey{{SKU: "a"}}) {
			t.Errorf("events %s at %v, want once at SKU a (all events: %v)", id, keys, events)
		}
	}
	many := &Exception{Lines: []ExceptionLine{{SKU: "b", Location: "w1"}, {SKU: "a", Location: "w2"}, {SKU: "b", Location: "w2"}}}
	if keys := s.exceptionPositions(many); !slices.Equal(keys, []PositionKey{{SKU: "a"}, {SKU: "b"}}) {
		t.Errorf("positions of an exception of SKUs b, a, b = %v, want a then b, once each", keys)
	}
}

// TestLateConfirmInAGatedPool: a gated campaign's late payment is an
// exception, never a re-reservation behind the gate's back.
func TestLateConfirmInAGatedPool(t *testing.T) {
	camp := PositionKey{SKU: "a", Location: "w1", Pool: "flash"}
	s := newState(map[PositionKey]int64{camp: 5})
	s.docPut(DocPool, "flash", Pool{ID: "flash", Kind: PoolCampaign, Gate: PoolGateRedis})
	id := s.Apply([]Command{reserve("k1", LineRequest{SKU: "a", Location: "w1", Pool: "flash", Quantity: 2})})[0].Reservation.ID
	s.Now = s.Now.Add(ReservationTTLDefault)
	r := s.Apply([]Command{lateConfirm("c1", id, OnLateReReserve, "psp-1", nil)})[0]
	if r.Err == nil || r.Err.Code != CodeReservationExpired || r.Err.ExceptionID == "" || r.ReReserved {
		t.Fatalf("late confirm in a gated pool = %+v, %v; want reservation_expired naming an exception", r, r.Err)
	}
	e := s.Exceptions[r.Err.ExceptionID]
	if e == nil || e.Code != CodeCampaignNotActive {
		t.Fatalf("exception %+v; want one saying the gate refused the re-reservation", e)
	}
	if got := s.peek(camp); got.Reserved != 0 || got.Committed != 0 {
		t.Fatalf("counters %+v; want nothing held again", got)
	}
}

func TestExceptionIDSortsByTime(t *testing.T) {
	times := []time.Time{time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC), t0, t0.Add(time.Microsecond), time.Date(9999, 12, 31, 23, 59, 59, 999999000, time.UTC)}
	prev := ""
	for _, at := range times {
		id := ExceptionID(at, "0193a1b2-0000-7000-8000-000000000000")
		if !ValidIdentifier(id) || id <= prev {
			t.Fatalf("id %q after %q: want a valid identifier sorting after", id, prev)
		}
		prev = id
	}
}
