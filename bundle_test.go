package stockd

import "testing"

func TestBundleAvailable(t *testing.T) {
	b := Bundle{ID: "kit", Components: []BundleComponent{{SKU: "x", Quantity: 2}, {SKU: "y", Quantity: 3}}}
	tests := []struct {
		available map[string]int64
		want      int64
	}{
		{map[string]int64{"x": 10, "y": 9}, 3},
		{map[string]int64{"x": 5, "y": 100}, 2},
		{map[string]int64{"x": 10}, 0},
		{map[string]int64{"x": -4, "y": 9}, 0},
	}
	for _, tt := range tests {
		if got := BundleAvailable(b, tt.available); got != tt.want {
			t.Errorf("BundleAvailable(%v) = %d, want %d", tt.available, got, tt.want)
		}
	}
}

// TestBundleReserve: components are reserved atomically, summed with a
// plain line of the same component, and the bundle SKU holds nothing; a
// component's deduction timing applies to the bundle.
func TestBundleReserve(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 5, pk("b", "w1"): 1})
	s.SKUs["kit"] = SKU{ID: "kit", Bundle: true}
	s.docPut(DocBundle, "kit", Bundle{ID: "kit", Components: []BundleComponent{{SKU: "a", Quantity: 2}, {SKU: "b", Quantity: 1}}})
	res := s.Apply([]Command{
		reserveBy("", LineRequest{SKU: "kit", Quantity: 2}),
		reserveBy("", LineRequest{SKU: "kit", Quantity: 1}, LineRequest{SKU: "a", Quantity: 1}),
	})
	if res[0].Err == nil || res[0].Err.Code != CodeInsufficientStock || res[0].Err.Lines[0].SKU != "b" {
		t.Fatalf("two kits = %+v, want b short", res[0].Err)
	}
	l := res[1].Reservation.Lines
	if len(l) != 2 || l[0] != (ReservationLine{SKU: "a", Quantity: 3, Location: "w1", Pool: PoolDefault}) ||
		l[1] != (ReservationLine{SKU: "b", Quantity: 1, Location: "w1", Pool: PoolDefault, Bundle: "kit"}) {
		t.Fatalf("lines = %+v", l)
	}
	if _, ok := s.Positions[pk("kit", "w1")]; ok {
		t.Fatal("the bundle SKU got a position")
	}
	s.SKUs["b"] = SKU{ID: "b", Deduction: DeductionAtShipment}
	if r := s.Apply([]Command{reserveBy("", LineRequest{SKU: "kit", Quantity: 1})})[0]; r.Err == nil || r.Err.Code != CodeDeductionTiming {
		t.Fatalf("kit of an at_shipment component = %v, want deduction_timing", r.Err)
	}
}

func TestBundleCreateNormalize(t *testing.T) {
	tests := []struct {
		op   BundleCreate
		want string // invalid field, "" for valid
	}{
		{BundleCreate{Bundle: "k", Components: []BundleComponent{{SKU: "b", Quantity: 1}, {SKU: "a", Quantity: 1000}}}, ""},
		{BundleCreate{Bundle: "k"}, "components"},
		{BundleCreate{Bundle: "k", Components: make([]BundleComponent, BundleComponentsMax+1)}, "components"},
		{BundleCreate{Bundle: "k", Components: []BundleComponent{{SKU: "k", Quantity: 1}}}, "components.sku"},
		{BundleCreate{Bundle: "k", Components: []BundleComponent{{SKU: "a", Quantity: 1001}}}, "components.quantity"},
		{BundleCreate{Bundle: "k", Components: []BundleComponent{{SKU: "a", Quantity: 1}, {SKU: "a", Quantity: 2}}}, "components.sku"},
		{BundleCreate{Bundle: "bad id", Components: []BundleComponent{{SKU: "a", Quantity: 1}}}, "bundle"},
	}
	for _, tt := range tests {
		got := ""
		if err := tt.op.normalize(); err != nil {
			got = err.Field
		}
		if got != tt.want {
			t.Errorf("normalize(%+v) field = %q, want %q", tt.op, got, tt.want)
		}
	}
}
