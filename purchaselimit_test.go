package stockd

import (
	"testing"
	"time"
)

// TestPurchaseLimitWindow: one customer's orders count until released or
// out of the window; other customers and orders without one do not.
func TestPurchaseLimitWindow(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 100})
	s.docPut(DocLimit, LimitID(LimitScopeSKU, "a"), PurchaseLimit{ID: "sku:a", Scope: LimitScopeSKU, Target: "a", MaxQuantityPerCustomer: 3, WindowSeconds: 60})
	by := func(customer string, q int64) Command {
		c := reserveBy("", LineRequest{SKU: "a", Quantity: q})
		c.Op.(*Reserve).CustomerID = customer
		return c
	}
	res := s.Apply([]Command{by("c1", 2), by("c1", 2), by("c1", 1), by("c2", 3), by("", 50)})
	codes := ""
	for _, r := range res {
		if r.Err != nil {
			codes += r.Err.Code + " "
		} else {
			codes += "ok "
		}
	}
	if codes != "ok purchase_limit_exceeded ok ok ok " {
		t.Fatalf("answers = %s", codes)
	}
	var u Usage
	if !s.docGet(DocUsage, "c1", &u) || len(u.Entries) != 2 || u.Entries[0].Until != t0.Add(time.Minute) {
		t.Fatalf("usage of c1 = %+v", u)
	}
	first := s.Reservations[res[0].Reservation.ID]
	s.move(first, StatusReleased, BusinessRelease, "", ReleaseCancelled)
	if r := s.Apply([]Command{by("c1", 2)})[0]; r.Err != nil {
		t.Fatalf("after release: %v", r.Err)
	}
	s.Now = t0.Add(time.Minute)
	if r := s.Apply([]Command{by("c1", 3)})[0]; r.Err != nil {
		t.Fatalf("a window later: %v", r.Err)
	}
	s.docGet(DocUsage, "c1", &u)
	if len(u.Entries) != 1 {
		t.Fatalf("entries out of the window were kept: %+v", u.Entries)
	}
}

func TestLimitSetNormalize(t *testing.T) {
	tests := []struct {
		op   LimitSet
		want string
	}{
		{LimitSet{Scope: "sku", Target: "a", MaxQuantityPerCustomer: 1, WindowSeconds: 1}, ""},
		{LimitSet{Scope: "campaign", Target: "drop", MaxQuantityPerCustomer: QuantityMax, WindowSeconds: int64(LimitWindowMax / time.Second)}, ""},
		{LimitSet{Scope: "shop", Target: "a", MaxQuantityPerCustomer: 1, WindowSeconds: 1}, "scope"},
		{LimitSet{Scope: "campaign", Target: PoolDefault, MaxQuantityPerCustomer: 1, WindowSeconds: 1}, "target"},
		{LimitSet{Scope: "sku", Target: "a", MaxQuantityPerCustomer: 0, WindowSeconds: 1}, "max_quantity_per_customer"},
		{LimitSet{Scope: "sku", Target: "a", MaxQuantityPerCustomer: 1, WindowSeconds: int64(LimitWindowMax/time.Second) + 1}, "window_seconds"},
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

// TestPurchaseLimitUsageBounded: a customer's usage document remembers at
// most UsageEntriesMax orders; past that the customer waits for the window.
func TestPurchaseLimitUsageBounded(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 1000})
	s.docPut(DocLimit, "sku:a", PurchaseLimit{ID: "sku:a", Scope: LimitScopeSKU, Target: "a", MaxQuantityPerCustomer: QuantityMax, WindowSeconds: 60})
	cmds := make([]Command, UsageEntriesMax+1)
	for i := range cmds {
		cmds[i] = reserveBy("", LineRequest{SKU: "a", Quantity: 1})
		cmds[i].Op.(*Reserve).CustomerID = "c"
	}
	res := s.Apply(cmds)
	for i, r := range res[:UsageEntriesMax] {
		if r.Err != nil {
			t.Fatalf("order %d: %v", i, r.Err)
		}
	}
	if r := res[UsageEntriesMax]; r.Err == nil || r.Err.Code != CodePurchaseLimitExceeded {
		t.Fatalf("order past the bound = %v, want purchase_limit_exceeded", r.Err)
	}
	if len(s.Writes().Documents) != 2 { // the limit and the usage
		t.Fatalf("documents written = %d", len(s.Writes().Documents))
	}
}
