package stockd

import "testing"

func orderCommand(key, order string) Command {
	c := Command{IdempotencyKey: key, RequestHash: key, Op: &Reserve{OrderID: order, Lines: []LineRequest{{SKU: "a", Quantity: 1}}}}
	if err := c.Normalize(); err != nil {
		panic(err)
	}
	return c
}

func releaseCommand(key, id string) Command {
	return Command{IdempotencyKey: key, RequestHash: key, Op: &Transition{Action: KindRelease, ReservationID: id, Reason: ReleaseCancelled}}
}

// TestOrderHolderInBatch: what holds an order within one batch, as the
// write order of both backends (updates of existing rows, inserts, then
// updates of new rows) lets the unique index accept it.
func TestOrderHolderInBatch(t *testing.T) {
	held := Reservation{ID: "old", OrderID: "o1", Status: StatusPending, ExpiresAt: t0.Add(ReservationTTLDefault),
		Lines: []ReservationLine{{SKU: "a", Quantity: 1, Location: "w1", Pool: PoolDefault}}}
	tests := []struct {
		name  string
		setup func(s *BatchState)
		cmds  []Command
		want  []string // the code of each answer, "" for success
	}{
		{"two in one batch", nil,
			[]Command{orderCommand("k1", "o1"), orderCommand("k2", "o1"), orderCommand("k3", "o2")},
			[]string{"", CodeDuplicateOrder, ""}},
		{"no order is no business number", nil,
			[]Command{orderCommand("k1", ""), orderCommand("k2", "")},
			[]string{"", ""}},
		{"created and released in the batch still holds it", nil,
			[]Command{orderCommand("k1", "o1"), releaseCommand("k2", "r1"), orderCommand("k3", "o1")},
			[]string{"", "", CodeDuplicateOrder}},
		{"read as holding, unlocked", func(s *BatchState) { s.OrderHolders["o1"] = "old" },
			[]Command{orderCommand("k1", "o1")},
			[]string{CodeDuplicateOrder}},
		{"released earlier in the batch frees it", func(s *BatchState) {
			s.OrderHolders["o1"] = "old"
			r := held
			s.Reservations["old"] = &r
			s.Positions[pk("a", "w1")].Reserved = 1
		},
			[]Command{releaseCommand("k1", "old"), orderCommand("k2", "o1")},
			[]string{"", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newState(map[PositionKey]int64{pk("a", "w1"): 10})
			if tt.setup != nil {
				tt.setup(s)
			}
			for i, res := range s.Apply(tt.cmds) {
				got := ""
				if res.Err != nil {
					got = res.Err.Code
				}
				if got != tt.want[i] {
					t.Fatalf("command %d: %v, want %q", i, res.Err, tt.want[i])
				}
				if got == CodeDuplicateOrder && res.Err.ExistingID == "" {
					t.Fatalf("command %d: duplicate_order names nothing", i)
				}
			}
		})
	}
}
