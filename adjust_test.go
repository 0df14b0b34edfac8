package stockd

import (
	"testing"
	"time"
)

// TestCheckCorrectionBasis: what a correction of a counter other than
// on_hand must find in the discrepancy it names, locked, before it changes
// anything.
func TestCheckCorrectionBasis(t *testing.T) {
	at := PositionKey{SKU: "A", Location: LocationDefault, Pool: PoolDefault}
	drift := Discrepancy{ID: 7, Status: DiscrepancyOpen, Finding: Finding{Kind: DiscrepancyReservations, Position: at,
		Expected: Counters{OnHand: 10, Reserved: 4, Committed: 2}, Actual: Counters{OnHand: 10, Reserved: 7, Committed: 2}}}
	correction := func(counter string, delta int64) *Adjust {
		return &Adjust{Position: at, Reason: ReasonCorrection, Counter: counter, Delta: delta, DiscrepancyID: 7, Basis: "counted"}
	}
	cases := []struct {
		name        string
		discrepancy *Discrepancy // nil: none recorded
		change      func(*Discrepancy)
		adjust      *Adjust
		claimed     bool
		want        string // the code, empty when the correction may apply
	}{
		{"the drift recorded", &drift, nil, correction(CounterReserved, -3), false, ""},
		{"unknown discrepancy", nil, nil, correction(CounterReserved, -3), false, CodeUnknownDiscrepancy},
		{"closed", &drift, func(d *Discrepancy) { d.Status = DiscrepancyClosed }, correction(CounterReserved, -3), false, CodeDiscrepancyClosed},
		{"another position", &drift, func(d *Discrepancy) { d.Position.Pool = "other" }, correction(CounterReserved, -3), false, CodeUnprocessable},
		{"the ledger's kind for reserved", &drift, func(d *Discrepancy) { d.Kind = DiscrepancyLedgerLast }, correction(CounterReserved, -3), false, CodeUnprocessable},
		{"inbound for committed", &drift, func(d *Discrepancy) { d.Kind = DiscrepancyInbound }, correction(CounterCommitted, -3), false, CodeUnprocessable},
		{"more than the drift", &drift, nil, correction(CounterReserved, -6), false, CodeStaleQuantity},
		{"less than the drift", &drift, nil, correction(CounterReserved, -2), false, CodeStaleQuantity},
		{"the drift's opposite", &drift, nil, correction(CounterReserved, 3), false, CodeStaleQuantity},
		{"a counter without drift", &drift, nil, correction(CounterCommitted, -2), false, CodeStaleQuantity},
		{"corrected already", &drift, nil, correction(CounterReserved, -3), true, CodeDuplicateReference},
		{"in_transit by inbound", &drift, func(d *Discrepancy) { d.Kind, d.Expected.InTransit, d.Actual.InTransit = DiscrepancyInbound, 5, 6 },
			correction(CounterInTransit, -1), false, ""},
		{"quarantined by the ledger's last entry", &drift, func(d *Discrepancy) { d.Kind, d.Actual.Quarantined = DiscrepancyLedgerLast, 2 },
			correction(CounterQuarantined, -2), false, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := NewBatchState(time.Unix(0, 0), func() string { return "id" })
			if tc.discrepancy != nil {
				d := *tc.discrepancy
				if tc.change != nil {
					tc.change(&d)
				}
				holdDiscrepancy(s, d)
			}
			if tc.claimed {
				s.References[correctionClaim(tc.adjust)] = "first-approval"
			}
			err := s.checkCorrectionBasis(tc.adjust)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("checkCorrectionBasis = %v, want none", err)
			case tc.want != "" && (err == nil || err.Code != tc.want):
				t.Fatalf("checkCorrectionBasis = %v, want %s", err, tc.want)
			}
		})
	}
}

// TestCorrectionClaim: one claim per discrepancy, counter and position.
func TestCorrectionClaim(t *testing.T) {
	a := &Adjust{Position: PositionKey{SKU: "A", Location: LocationDefault, Pool: PoolDefault}, Counter: CounterReserved, DiscrepancyID: 7}
	same := *a
	if correctionClaim(a) != correctionClaim(&same) {
		t.Fatal("one correction claims two keys")
	}
	for _, other := range []func(*Adjust){
		func(b *Adjust) { b.Counter = CounterCommitted },
		func(b *Adjust) { b.DiscrepancyID = 8 },
		func(b *Adjust) { b.Position.Location = "east" },
		func(b *Adjust) { b.Position.SKU = "B" },
	} {
		b := *a
		other(&b)
		if correctionClaim(&b) == correctionClaim(a) {
			t.Fatalf("claims of %+v and %+v are one", a, b)
		}
	}
}
