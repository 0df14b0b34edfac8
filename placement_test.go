package stockd

import (
	"fmt"
	"testing"
)

var reserveKeys int

// reserveBy is a normalized reservation of lines by strategy, with a key
// of its own.
func reserveBy(strategy string, lines ...LineRequest) Command {
	reserveKeys++
	key := fmt.Sprintf("by-%d", reserveKeys)
	c := Command{IdempotencyKey: key, RequestHash: key, Op: &Reserve{Lines: lines, Strategy: strategy}}
	if err := c.Normalize(); err != nil {
		panic(err)
	}
	return c
}

// TestPlacementStrategies places the same stock by each strategy: w1
// (priority 1) holds a:2 and b:1, w2 (priority 2) holds a:5 and b:5, and
// the inactive w0 (priority 0) holds plenty of both.
func TestPlacementStrategies(t *testing.T) {
	tests := []struct {
		name     string
		strategy string
		lines    []LineRequest
		want     string // placed lines, or the error code
	}{
		{"priority whole line", StrategyPriority, []LineRequest{{SKU: "a", Quantity: 3}}, "[a@w2:3]"},
		{"priority each line apart", StrategyPriority, []LineRequest{{SKU: "a", Quantity: 2}, {SKU: "b", Quantity: 2}}, "[a@w1:2 b@w2:2]"},
		{"single location holds all", StrategySingleLocation, []LineRequest{{SKU: "a", Quantity: 2}, {SKU: "b", Quantity: 2}}, "[a@w2:2 b@w2:2]"},
		{"single location prefers priority", StrategySingleLocation, []LineRequest{{SKU: "a", Quantity: 1}, {SKU: "b", Quantity: 1}}, "[a@w1:1 b@w1:1]"},
		{"single location short anywhere", StrategySingleLocation, []LineRequest{{SKU: "a", Quantity: 6}, {SKU: "b", Quantity: 1}}, CodeInsufficientStock},
		{"single location with a named line", StrategySingleLocation, []LineRequest{{SKU: "a", Quantity: 1, Location: "w1"}, {SKU: "b", Quantity: 3}}, "[a@w1:1 b@w2:3]"},
		{"split across", StrategySplit, []LineRequest{{SKU: "a", Quantity: 6}}, "[a@w1:2 a@w2:4]"},
		{"split all or nothing", StrategySplit, []LineRequest{{SKU: "a", Quantity: 8}}, CodeInsufficientStock},
		{"split merges on a position", StrategySplit, []LineRequest{{SKU: "a", Quantity: 1, Location: "w2"}, {SKU: "a", Quantity: 6}}, "[a@w2:5 a@w1:2]"},
		{"inactive named", StrategyPriority, []LineRequest{{SKU: "a", Quantity: 1, Location: "w0"}}, CodeLocationInactive},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newState(map[PositionKey]int64{pk("a", "w1"): 2, pk("b", "w1"): 1, pk("a", "w2"): 5, pk("b", "w2"): 5, pk("a", "w0"): 99, pk("b", "w0"): 99})
			s.Locations["w0"] = Location{ID: "w0", Inactive: true}
			res := s.Apply([]Command{reserveBy(tt.strategy, tt.lines...)})[0]
			got := ""
			if res.Err != nil {
				got = res.Err.Code
			} else {
				var placed []string
				for _, l := range res.Reservation.Lines {
					placed = append(placed, fmt.Sprintf("%s@%s:%d", l.SKU, l.Location, l.Quantity))
				}
				got = fmt.Sprint(placed)
			}
			if got != tt.want {
				t.Fatalf("placed %s, want %s", got, tt.want)
			}
			if res.Err == nil {
				// One ledger entry per position: the ledger is unique per
				// reservation and position.
				seen := map[PositionKey]bool{}
				for _, e := range s.Writes().Ledger {
					if EventOnly(e.BusinessType) {
						continue // a derived event beside the change
					}
					if seen[e.Position] {
						t.Fatalf("two ledger entries at %v", e.Position)
					}
					seen[e.Position] = true
				}
			}
		})
	}
}

// TestPlacementPools: a pool that falls back takes from normal once empty;
// a campaign outside its window refuses the order.
func TestPlacementPools(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 5, {SKU: "a", Location: "w2", Pool: "web"}: 1})
	s.docPut(DocPool, "web", Pool{ID: "web", Kind: PoolChannel, FallbackToNormal: true})
	ends := t0
	s.docPut(DocPool, "promo", Pool{ID: "promo", Kind: PoolCampaign, EndsAt: &ends})
	res := s.Apply([]Command{
		reserveBy("", LineRequest{SKU: "a", Pool: "web", Quantity: 1}),
		reserveBy("", LineRequest{SKU: "a", Pool: "web", Quantity: 2}),
		reserveBy("", LineRequest{SKU: "a", Pool: "promo", Quantity: 1}),
	})
	if l := res[0].Reservation.Lines; len(l) != 1 || l[0].Pool != "web" || l[0].Location != "w2" {
		t.Fatalf("first = %+v, want the web pool at w2", l)
	}
	if l := res[1].Reservation.Lines; len(l) != 1 || l[0].Pool != PoolDefault || l[0].Location != "w1" {
		t.Fatalf("second = %+v, want normal at w1", l)
	}
	if res[2].Err == nil || res[2].Err.Code != CodeCampaignNotActive {
		t.Fatalf("ended campaign = %v, want campaign_not_active", res[2].Err)
	}
}

// TestPlacementSingleLocationWithFallback: a location holding one line in
// its pool and the other in normal (the pool falls back) holds the order.
func TestPlacementSingleLocationWithFallback(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 1, pk("b", "w1"): 1, {SKU: "a", Location: "w2", Pool: "web"}: 1, pk("b", "w2"): 1})
	s.docPut(DocPool, "web", Pool{ID: "web", Kind: PoolChannel, FallbackToNormal: true})
	res := s.Apply([]Command{reserveBy(StrategySingleLocation, LineRequest{SKU: "a", Pool: "web", Quantity: 1}, LineRequest{SKU: "b", Quantity: 1})})[0]
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	got := fmt.Sprint(res.Reservation.Lines)
	want := fmt.Sprint([]ReservationLine{{SKU: "a", Quantity: 1, Location: "w1", Pool: PoolDefault}, {SKU: "b", Quantity: 1, Location: "w1", Pool: PoolDefault}})
	if got != want {
		t.Fatalf("lines = %s, want %s (w1 first by priority, a from normal)", got, want)
	}
	if !s.ServedElsewhere(LineRequest{SKU: "a", Pool: "web"}) || s.ServedElsewhere(LineRequest{SKU: "a", Pool: PoolDefault}) {
		t.Fatal("ServedElsewhere: want true for a pool that falls back, false for normal")
	}
}

// TestPlacementSeesLocationChanges: the active locations by priority are
// kept for the batch, yet a location created, deactivated or moved in
// priority by an earlier command places the later orders of the batch.
func TestPlacementSeesLocationChanges(t *testing.T) {
	s := newState(map[PositionKey]int64{pk("a", "w1"): 5, pk("a", "w2"): 5, pk("a", "w3"): 5})
	inactive, first := false, 0
	op := func(o Operation) Command {
		reserveKeys++
		key := fmt.Sprintf("loc-%d", reserveKeys)
		c := Command{IdempotencyKey: key, RequestHash: key, Op: o}
		if err := c.Normalize(); err != nil {
			t.Fatal(err)
		}
		return c
	}
	steps := []struct {
		cmd  Command
		want string // location of the reserved line, "" for a command that places nothing
	}{
		{reserveBy(StrategyPriority, LineRequest{SKU: "a", Quantity: 1}), "w1"},
		{op(&LocationUpdate{ID: "w1", Active: &inactive}), ""},
		{reserveBy(StrategyPriority, LineRequest{SKU: "a", Quantity: 1}), "w2"},
		{op(&LocationCreate{Location: Location{ID: "w3", Name: "w3", Priority: 0}}), ""},
		{reserveBy(StrategyPriority, LineRequest{SKU: "a", Quantity: 1}), "w3"},
		{op(&LocationUpdate{ID: "w2", Priority: &first}), ""},
		{reserveBy(StrategyPriority, LineRequest{SKU: "a", Quantity: 1}), "w2"},
	}
	for i, st := range steps {
		res := s.Apply([]Command{st.cmd})[0]
		if res.Err != nil {
			t.Fatalf("step %d: %v", i, res.Err)
		}
		if st.want == "" {
			continue
		}
		if got := res.Reservation.Lines[0].Location; got != st.want {
			t.Fatalf("step %d placed at %s, want %s", i, got, st.want)
		}
	}
}
