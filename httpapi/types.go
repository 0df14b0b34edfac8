package httpapi

import "github.com/stockd/stockd"

// The API's own types. They are the wire contract of /v1 (described by
// openapi.json) and are shared by Server and Client; the domain types' JSON
// tags are for stored answers, not for callers, so the two can evolve apart.
// Each resource's types live in its file; these are the ones several
// resources answer with.

// Counters are the books of a position: the four that make up available,
// and in-transit and incoming, kept apart and never sellable.
type Counters struct {
	OnHand      int64 `json:"on_hand"`
	Reserved    int64 `json:"reserved"`
	Committed   int64 `json:"committed"`
	Quarantined int64 `json:"quarantined"`
	InTransit   int64 `json:"in_transit"`
	Incoming    int64 `json:"incoming"`
}

// Balance is Counters with the derived available.
type Balance struct {
	OnHand      int64 `json:"on_hand"`
	Reserved    int64 `json:"reserved"`
	Committed   int64 `json:"committed"`
	Quarantined int64 `json:"quarantined"`
	InTransit   int64 `json:"in_transit"`
	Incoming    int64 `json:"incoming"`
	Available   int64 `json:"available"`
}

// Position is one (SKU, location, pool) and its balance: the answer to a
// receipt or an adjustment.
type Position struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Pool     string `json:"pool"`
	Balance
	// Replayed: see SKU.Replayed.
	Replayed bool `json:"-"`
}

func balanceOut(c stockd.Counters) Balance {
	return Balance{
		OnHand: c.OnHand, Reserved: c.Reserved, Committed: c.Committed, Quarantined: c.Quarantined,
		InTransit: c.InTransit, Incoming: c.Incoming, Available: c.Available(),
	}
}

func positionOut(p stockd.Position) Position {
	return Position{SKU: p.SKU, Location: p.Location, Pool: p.Pool, Balance: balanceOut(p.Counters)}
}
