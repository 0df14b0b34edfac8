package stockd

import (
	"cmp"
	"slices"
	"strings"
)

// want is one line to place once bundles are expanded: a SKU that holds
// stock, the pools it may come from in order of preference, and the bundle
// it was reserved for.
type want struct {
	SKU      string
	Quantity int64
	Location string // "" lets the strategy choose
	// Pools is the named pool, then normal when the pool falls back.
	Pools  []string
	Bundle string
}

// placement places the wants of one order against the locked counters as
// changed by earlier commands of the batch, less what earlier wants of
// this order took. Placed quantities on one position merge into one line:
// the ledger is unique per reservation and position.
type placement struct {
	s     *BatchState
	lines []ReservationLine
	// takenAt indexes lines by position once they outgrow a scan (large
	// bundles); a plain order of a few lines never builds it.
	takenAt map[PositionKey]int
	short   []Shortfall
	// apart is set when the lines could not all come from one location
	// under StrategySingleLocation.
	apart bool
}

// takenScanMax is how many placed lines are found by a scan; more are
// indexed in takenAt.
const takenScanMax = 16

func newPlacement(s *BatchState, wants int) placement {
	return placement{s: s, lines: make([]ReservationLine, 0, wants)}
}

// place places every want by strategy; what cannot be placed is in p.short.
func (p *placement) place(wants []want, strategy string) {
	var free []want
	for _, w := range wants {
		if w.Location != "" {
			p.placeNamed(w)
			continue
		}
		if strategy != StrategySingleLocation {
			p.placeFree(w, strategy)
			continue
		}
		free = append(free, w)
	}
	if len(free) == 0 {
		return
	}
	if loc, ok := p.singleLocation(free); ok {
		for _, w := range free {
			p.take(PositionKey{SKU: w.SKU, Location: loc, Pool: p.poolAt(w, loc)}, w.Quantity, w.Bundle)
		}
		return
	}
	// One parcel was asked for: lines placed apart would be two.
	p.apart = true
	for _, w := range free {
		p.shortOf(w, p.bestAtOneLocation(w))
	}
}

// bestAtOneLocation is the most of w that any one active location holds,
// in the first of w's pools there that holds any.
func (p *placement) bestAtOneLocation(w want) int64 {
	var best int64
	for _, loc := range p.activeLocations() {
		for _, pool := range w.Pools {
			best = max(best, p.available(PositionKey{SKU: w.SKU, Location: loc, Pool: pool}))
		}
	}
	return best
}

// available is what position k can still give this order.
func (p *placement) available(k PositionKey) int64 {
	avail := p.s.peek(k).Available()
	if i := p.lineAt(k); i >= 0 {
		avail -= p.lines[i].Quantity
	}
	return avail
}

// lineAt returns the index of the line placed at k, or -1: the order
// holds one line per position, so its quantity is what the order took
// there.
func (p *placement) lineAt(k PositionKey) int {
	if len(p.lines) <= takenScanMax {
		for i := range p.lines {
			if p.lines[i].SKU == k.SKU && p.lines[i].Location == k.Location && p.lines[i].Pool == k.Pool {
				return i
			}
		}
		return -1
	}
	if p.takenAt == nil {
		p.takenAt = make(map[PositionKey]int, 2*len(p.lines))
		for i := range p.lines {
			p.takenAt[p.lines[i].Key()] = i
		}
	}
	if i, ok := p.takenAt[k]; ok {
		return i
	}
	return -1
}

// placeNamed places a want at the location it names, in the first of its
// pools that holds it whole.
func (p *placement) placeNamed(w want) {
	var best int64
	for _, pool := range w.Pools {
		k := PositionKey{SKU: w.SKU, Location: w.Location, Pool: pool}
		avail := p.available(k)
		if avail >= w.Quantity {
			p.take(k, w.Quantity, w.Bundle)
			return
		}
		best = max(best, avail)
	}
	p.shortOf(w, best)
}

// placeFree places a want that names no location: whole at the first
// active location by priority (pool by pool), or, for split, piece by
// piece across locations by priority.
func (p *placement) placeFree(w want, strategy string) {
	if strategy == StrategySplit {
		p.placeSplit(w)
		return
	}
	var best int64
	for _, pool := range w.Pools {
		for _, loc := range p.activeLocations() {
			k := PositionKey{SKU: w.SKU, Location: loc, Pool: pool}
			avail := p.available(k)
			if avail >= w.Quantity {
				p.take(k, w.Quantity, w.Bundle)
				return
			}
			best = max(best, avail)
		}
	}
	p.shortOf(w, best)
}

// placeSplit takes what each position holds, by pool then location
// priority, until the want is served; nothing when all of them together
// cannot serve it.
func (p *placement) placeSplit(w want) {
	var total int64
	for _, pool := range w.Pools {
		for _, loc := range p.activeLocations() {
			total += max(p.available(PositionKey{SKU: w.SKU, Location: loc, Pool: pool}), 0)
		}
	}
	if total < w.Quantity {
		p.shortOf(w, total)
		return
	}
	rest := w.Quantity
	for _, pool := range w.Pools {
		for _, loc := range p.activeLocations() {
			k := PositionKey{SKU: w.SKU, Location: loc, Pool: pool}
			if q := min(max(p.available(k), 0), rest); q > 0 {
				p.take(k, q, w.Bundle)
				rest -= q
			}
			if rest == 0 {
				return
			}
		}
	}
}

// singleLocation returns the first active location by priority that holds
// every want whole, in one of each want's pools.
func (p *placement) singleLocation(wants []want) (string, bool) {
	for _, loc := range p.activeLocations() {
		extra := map[PositionKey]int64{}
		fits := true
		for _, w := range wants {
			k, ok := p.fit(w, loc, extra)
			if !ok {
				fits = false
				break
			}
			extra[k] += w.Quantity
		}
		if fits {
			return loc, true
		}
	}
	return "", false
}

// fit returns the position at loc, in the first of w's pools, that holds w
// beside what this order took and extra.
func (p *placement) fit(w want, loc string, extra map[PositionKey]int64) (PositionKey, bool) {
	for _, pool := range w.Pools {
		k := PositionKey{SKU: w.SKU, Location: loc, Pool: pool}
		if p.available(k)-extra[k] >= w.Quantity {
			return k, true
		}
	}
	return PositionKey{}, false
}

// poolAt is the pool singleLocation found for w at loc; it runs in the
// same order, so wants placed one by one land where they were fitted.
func (p *placement) poolAt(w want, loc string) string {
	k, ok := p.fit(w, loc, nil)
	if !ok {
		panic("stockd: single_location placement lost its fit")
	}
	return k.Pool
}

// take holds quantity at k for the order. A component line and a plain
// line merged on one position keep a bundle tag only when they share it.
func (p *placement) take(k PositionKey, quantity int64, bundle string) {
	if i := p.lineAt(k); i >= 0 {
		p.lines[i].Quantity += quantity
		if p.lines[i].Bundle != bundle {
			p.lines[i].Bundle = ""
		}
		return
	}
	p.lines = append(p.lines, ReservationLine{SKU: k.SKU, Quantity: quantity, Location: k.Location, Pool: k.Pool, Bundle: bundle})
	if p.takenAt != nil {
		p.takenAt[k] = len(p.lines) - 1
	}
}

func (p *placement) shortOf(w want, available int64) {
	p.short = append(p.short, Shortfall{SKU: w.SKU, Location: w.Location, Pool: w.Pools[0], Requested: w.Quantity, Available: max(available, 0)})
}

// activeLocations lists the locations placement may choose, by priority,
// then id. The list is built once per batch and kept until a command
// creates or changes a location (locationsChanged).
func (p *placement) activeLocations() []string {
	return p.s.activeLocations()
}

func (s *BatchState) activeLocations() []string {
	if s.locationsByPriority != nil {
		return s.locationsByPriority
	}
	locs := make([]string, 0, len(s.Locations))
	for id, l := range s.Locations {
		if !l.Inactive {
			locs = append(locs, id)
		}
	}
	slices.SortFunc(locs, func(a, b string) int {
		if c := cmp.Compare(s.Locations[a].Priority, s.Locations[b].Priority); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	s.locationsByPriority = locs
	return locs
}

// locationsChanged forgets the active locations by priority after a
// command created or changed a location.
func (s *BatchState) locationsChanged() { s.locationsByPriority = nil }

// ServedElsewhere reports whether a reservation line may take its stock
// somewhere other than its own (SKU, pool): a bundle SKU's components, or
// the normal pool of a pool that falls back. The engine's sold-out memory
// must not mark such a line when its own key has nothing available. It
// reads the documents the batch locked.
func (s *BatchState) ServedElsewhere(l LineRequest) bool {
	if s.SKUs[l.SKU].Bundle {
		return true
	}
	if l.Pool == PoolDefault || l.Pool == "" {
		return false
	}
	var p Pool
	return s.docGet(DocPool, l.Pool, &p) && p.FallbackToNormal
}
