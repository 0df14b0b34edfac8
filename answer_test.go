package stockd

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// TestAnswerJSONMatchesMarshal: the stored answer is byte for byte what
// json.Marshal writes, for the answers encoded by hand and for those that
// fall back.
func TestAnswerJSONMatchesMarshal(t *testing.T) {
	at := time.Date(2026, 12, 2, 12, 0, 0, 123456000, time.UTC)
	res := func(edit func(*Reservation)) *Reservation {
		r := &Reservation{ID: "r1", Key: "k1", Status: StatusPending, ExpiresAt: at.Add(15 * time.Minute), CreatedAt: at, UpdatedAt: at,
			Lines: []ReservationLine{{SKU: "a", Quantity: 2, Location: "w1", Pool: PoolDefault}, {SKU: "b", Quantity: 1, Location: "w2", Pool: "flash", Bundle: "kit"}}}
		if edit != nil {
			edit(r)
		}
		return r
	}
	tests := []struct {
		name string
		r    Result
	}{
		{"created", Result{Reservation: res(nil), Created: true}},
		{"every optional field", Result{Reservation: res(func(r *Reservation) {
			r.CustomerID, r.OrderID, r.ReleaseReason, r.Status = "c-1", "order 7/2", ReleaseCancelled, StatusReleased
			r.Lines[0].Refunded, r.Lines[0].Shipped, r.Lines[0].Returned = 1, 1, -1
		}), ReReserved: true, Pending: true, Version: 42}},
		{"nil lines", Result{Reservation: res(func(r *Reservation) { r.Lines = nil })}},
		{"empty lines", Result{Reservation: res(func(r *Reservation) { r.Lines = []ReservationLine{} })}},
		{"zero times", Result{Reservation: res(func(r *Reservation) { r.ExpiresAt, r.CreatedAt, r.UpdatedAt = time.Time{}, time.Time{}, time.Time{} })}},
		{"whole seconds", Result{Reservation: res(func(r *Reservation) { r.CreatedAt = at.Truncate(time.Second) })}},
		{"offset zone", Result{Reservation: res(func(r *Reservation) { r.CreatedAt = at.In(time.FixedZone("x", -(5*3600 + 30*60))) })}},
		{"html in an order id", Result{Reservation: res(func(r *Reservation) { r.OrderID = "<a&b>" })}},
		{"quote and backslash", Result{Reservation: res(func(r *Reservation) { r.OrderID = `a"b\c` })}},
		{"unicode", Result{Reservation: res(func(r *Reservation) { r.OrderID = "订单\u2028é" })}},
		{"invalid utf-8", Result{Reservation: res(func(r *Reservation) { r.OrderID = "a\xffb" })}},
		{"control", Result{Reservation: res(func(r *Reservation) { r.OrderID = "a\tb\x7f" })}},
		{"refusal", Result{Err: &Error{Code: CodeInsufficientStock, Message: "not enough", Lines: []Shortfall{{SKU: "a", Pool: PoolDefault, Requested: 2}}}}},
		{"sku", Result{SKU: &SKU{ID: "a"}, Created: true}},
		{"object", Result{Object: json.RawMessage(`{"id":"x"}`), Created: true}},
		{"empty", Result{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want, err := json.Marshal(tt.r)
			if err != nil {
				t.Fatal(err)
			}
			if got := answerJSON(&tt.r); !bytes.Equal(got, want) {
				t.Fatalf("answer\n got %s\nwant %s", got, want)
			}
		})
	}
}

// FuzzAnswerJSON compares the hand encoding with json.Marshal on
// reservations of any strings, quantities and times.
func FuzzAnswerJSON(f *testing.F) {
	f.Add("r1", "k1", "pending", "a", "w1", "default", "", "", int64(3), int64(0), int64(1764676800123456789), true)
	f.Add("r\u2028", "<k>", "released", "a\"b", "w\\1", "é", "kit", "order&1", int64(-1), int64(7), int64(-62135596800000000), false)
	f.Fuzz(func(t *testing.T, id, key, status, sku, location, pool, bundle, order string, quantity, shipped, unixNano int64, created bool) {
		at := time.Unix(0, unixNano).UTC()
		r := Result{Created: created, Reservation: &Reservation{
			ID: id, Key: key, Status: ReservationStatus(status), OrderID: order, ExpiresAt: at, CreatedAt: at.Add(time.Hour), UpdatedAt: at,
			Lines: []ReservationLine{{SKU: sku, Quantity: quantity, Location: location, Pool: pool, Bundle: bundle, Shipped: shipped}},
		}}
		want, err := json.Marshal(r)
		if err != nil {
			t.Skip("not encodable by json.Marshal either")
		}
		if got := answerJSON(&r); !bytes.Equal(got, want) {
			t.Fatalf("answer\n got %s\nwant %s", got, want)
		}
	})
}
