package stockd

import "testing"

func TestDeductionRefusal(t *testing.T) {
	tests := []struct {
		deduction string
		commit    bool
		want      string // error code, "" for allowed
	}{
		{"", false, ""},
		{DeductionAtOrder, false, ""},
		{DeductionAtOrder, true, ""},
		{DeductionAtPayment, false, CodeDeductionTiming},
		{DeductionAtPayment, true, ""},
		{DeductionAtShipment, false, CodeDeductionTiming},
		{DeductionAtShipment, true, CodeDeductionTiming},
	}
	for _, tt := range tests {
		err := deductionRefusal(SKU{ID: "a", Deduction: tt.deduction}, tt.commit)
		got := ""
		if err != nil {
			got = err.Code
		}
		if got != tt.want {
			t.Errorf("deductionRefusal(%q, commit %v) = %q, want %q", tt.deduction, tt.commit, got, tt.want)
		}
	}
}
