package stockd

import (
	"math/bits"
	"slices"
	"strings"
	"time"
)

// KindLimitSet creates or replaces a purchase limit.
const KindLimitSet CommandKind = "limit_set"

// Purchase limit scopes: what a limit counts.
const (
	// LimitScopeSKU counts the units of one SKU a customer orders. A limit
	// on a bundle SKU counts bundles; a bundle's components are not counted
	// against their own SKU limits (their limits would be known only after
	// the bundle is read, one locking round too late).
	LimitScopeSKU = "sku"
	// LimitScopeCampaign counts the units a customer orders from lines
	// naming one pool (a campaign or channel), whatever the SKU.
	LimitScopeCampaign = "campaign"
)

// Bounds of limits and their usage.
const (
	// LimitWindowMax bounds a limit's window: a year.
	LimitWindowMax = 366 * 24 * time.Hour
	// UsageEntriesMax bounds what one customer's usage document remembers:
	// one entry per reservation and limit within the limits' windows. A
	// customer with that many orders in the windows is refused until the
	// oldest leave them (or are released).
	UsageEntriesMax = 200
)

// PurchaseLimit is the document (DocLimit, id = LimitID(scope, target)):
// a customer's pending, confirmed and fulfilled quantity within the last
// Window may not pass MaxQuantityPerCustomer.
type PurchaseLimit struct {
	ID                     string    `json:"id"`
	Scope                  string    `json:"scope"`
	Target                 string    `json:"target"`
	MaxQuantityPerCustomer int64     `json:"max_quantity_per_customer"`
	WindowSeconds          int64     `json:"window_seconds"`
	CreatedAt              time.Time `json:"created_at"`
	UpdatedAt              time.Time `json:"updated_at"`
}

// LimitID names the limit of a scope on a target.
func LimitID(scope, target string) string { return scope + ":" + target }

// Usage is the document (DocUsage, id = customer id) of what one customer
// ordered under purchase limits. One document per customer, not per
// limit, so that a release finds every entry of its reservation by the
// customer alone, and one customer's orders serialize on it.
type Usage struct {
	Customer string       `json:"customer"`
	Entries  []UsageEntry `json:"entries"`
}

// UsageEntry is what one reservation counts against one limit. Until is
// when it leaves the window it was counted in, so that entries of limits
// a batch does not read can still be pruned.
type UsageEntry struct {
	Limit         string `json:"limit"`
	ReservationID string `json:"reservation_id"`
	// Quantity is what counts now: what was ordered, less what partial
	// refunds gave back.
	Quantity int64 `json:"quantity"`
	// Ordered is the quantity first counted, kept once a partial refund
	// lowers Quantity: a bundle limit needs it to tell how many bundles
	// the reservation's component lines still make.
	Ordered int64     `json:"ordered,omitempty"`
	At      time.Time `json:"at"`
	Until   time.Time `json:"until"`
}

// LimitSet creates the limit of Scope on Target, or replaces it.
type LimitSet struct {
	Scope                  string
	Target                 string
	MaxQuantityPerCustomer int64
	WindowSeconds          int64
}

// Kind is KindLimitSet.
func (l *LimitSet) Kind() CommandKind { return KindLimitSet }

// Touches names the limit document, and the SKU a SKU limit is on.
func (l *LimitSet) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocLimit, ID: LimitID(l.Scope, l.Target)})
	if l.Scope == LimitScopeSKU {
		t.SKUs = append(t.SKUs, l.Target)
	}
}

func (l *LimitSet) normalize() *Error {
	switch l.Scope {
	case LimitScopeSKU, LimitScopeCampaign:
	default:
		return InvalidField("scope", "must be one of sku, campaign")
	}
	if !ValidIdentifier(l.Target) {
		return InvalidField("target", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if l.Scope == LimitScopeCampaign && l.Target == PoolDefault {
		return InvalidField("target", "the normal pool is no campaign")
	}
	if err := validQuantity("max_quantity_per_customer", l.MaxQuantityPerCustomer); err != nil {
		return err
	}
	if l.WindowSeconds <= 0 || l.WindowSeconds > int64(LimitWindowMax/time.Second) {
		return InvalidField("window_seconds", "must be from 1 to %d", int64(LimitWindowMax/time.Second))
	}
	return nil
}

func (l *LimitSet) decide(s *BatchState, c *Command) Result {
	if _, ok := s.SKUs[l.Target]; l.Scope == LimitScopeSKU && !ok {
		return Result{Err: Errorf(CodeUnknownSKU, "sku %q is unknown", l.Target)}
	}
	id := LimitID(l.Scope, l.Target)
	doc := PurchaseLimit{ID: id, Scope: l.Scope, Target: l.Target, CreatedAt: s.Now}
	existed := s.docGet(DocLimit, id, &doc)
	doc.MaxQuantityPerCustomer, doc.WindowSeconds, doc.UpdatedAt = l.MaxQuantityPerCustomer, l.WindowSeconds, s.Now
	s.docPut(DocLimit, id, doc)
	return Result{Object: objectOf(doc), Created: !existed}
}

// reserveLimitTouches adds the purchase limit documents a reservation by a
// customer is checked against, and the customer's usage.
func reserveLimitTouches(r *Reserve, t *Touches) {
	if r.CustomerID == "" {
		return
	}
	t.Docs = append(t.Docs, DocKey{Kind: DocUsage, ID: r.CustomerID})
	for _, l := range r.Lines {
		t.Docs = append(t.Docs, DocKey{Kind: DocLimit, ID: LimitID(LimitScopeSKU, l.SKU)})
		if l.Pool != PoolDefault {
			t.Docs = append(t.Docs, DocKey{Kind: DocLimit, ID: LimitID(LimitScopeCampaign, l.Pool)})
		}
	}
}

// reservationLimitTouches adds the usage document a release, an expiry or
// a refund (full or partial) of r gives quantity back to.
func reservationLimitTouches(r *Reservation, t *Touches) {
	if r.CustomerID == "" {
		return
	}
	t.Docs = append(t.Docs, DocKey{Kind: DocUsage, ID: r.CustomerID})
}

// limitCharge is what a reservation counts against one limit.
type limitCharge struct {
	limit    PurchaseLimit
	quantity int64
}

// limitCheck returns what req counts against each limit that applies, or
// purchase_limit_exceeded when the customer's usage within a window plus
// req would pass its limit.
func (s *BatchState) limitCheck(req *Reserve) ([]limitCharge, *Error) {
	if req.CustomerID == "" {
		return nil, nil
	}
	var charges []limitCharge
	charge := func(id string, q int64) {
		for i := range charges {
			if charges[i].limit.ID == id {
				charges[i].quantity += q
				return
			}
		}
		var lim PurchaseLimit
		if s.docGet(DocLimit, id, &lim) {
			charges = append(charges, limitCharge{limit: lim, quantity: q})
		}
	}
	for _, l := range req.Lines {
		charge(LimitID(LimitScopeSKU, l.SKU), l.Quantity)
		if l.Pool != PoolDefault {
			charge(LimitID(LimitScopeCampaign, l.Pool), l.Quantity)
		}
	}
	if len(charges) == 0 {
		return nil, nil
	}
	usage := s.usage(req.CustomerID)
	if len(usage.Entries)+len(charges) > UsageEntriesMax {
		return nil, Errorf(CodePurchaseLimitExceeded, "customer %q has %d orders within the windows of its limits, the most remembered", req.CustomerID, len(usage.Entries))
	}
	for _, ch := range charges {
		since := s.Now.Add(-time.Duration(ch.limit.WindowSeconds) * time.Second)
		var used int64
		for _, e := range usage.Entries {
			if e.Limit == ch.limit.ID && e.At.After(since) {
				used += e.Quantity
			}
		}
		if used+ch.quantity > ch.limit.MaxQuantityPerCustomer {
			return nil, Errorf(CodePurchaseLimitExceeded, "customer %q has %d within the limit %s of %d per %d seconds; %d more would pass it",
				req.CustomerID, used, ch.limit.ID, ch.limit.MaxQuantityPerCustomer, ch.limit.WindowSeconds, ch.quantity)
		}
	}
	return charges, nil
}

// usage reads a customer's usage, without the entries whose window passed.
func (s *BatchState) usage(customer string) Usage {
	u := Usage{Customer: customer}
	s.docGet(DocUsage, customer, &u)
	u.Entries = slices.DeleteFunc(u.Entries, func(e UsageEntry) bool { return !s.Now.Before(e.Until) })
	return u
}

// limitRecord records what reservation id counts against each limit.
func (s *BatchState) limitRecord(customer, id string, charges []limitCharge) {
	if len(charges) == 0 {
		return
	}
	u := s.usage(customer)
	for _, ch := range charges {
		u.Entries = append(u.Entries, UsageEntry{
			Limit: ch.limit.ID, ReservationID: id, Quantity: ch.quantity, At: s.Now,
			Until: s.Now.Add(time.Duration(ch.limit.WindowSeconds) * time.Second),
		})
	}
	s.docPut(DocUsage, customer, u)
}

// limitGiveBack removes a released or expired reservation from its
// customer's usage of every limit it counted against.
func (s *BatchState) limitGiveBack(r *Reservation) {
	if r.CustomerID == "" {
		return
	}
	var u Usage
	if !s.docGet(DocUsage, r.CustomerID, &u) {
		return
	}
	kept := slices.DeleteFunc(slices.Clone(u.Entries), func(e UsageEntry) bool { return e.ReservationID == r.ID })
	if len(kept) == len(u.Entries) {
		return
	}
	u.Entries = kept
	s.docPut(DocUsage, r.CustomerID, u)
}

// limitRefund lowers what a partly refunded reservation counts against its
// customer's limits to what it still holds of what each limit counted. It
// may give back less than was refunded, never more: where the lines do not
// tell what a limit counted, the usage stays (see limitHeld).
func (s *BatchState) limitRefund(r *Reservation) {
	if r.CustomerID == "" {
		return
	}
	var u Usage
	if !s.docGet(DocUsage, r.CustomerID, &u) {
		return
	}
	changed := false
	for i := range u.Entries {
		e := &u.Entries[i]
		if e.ReservationID != r.ID {
			continue
		}
		if e.Ordered == 0 {
			e.Ordered = e.Quantity
		}
		if held := limitHeld(r, e); held < e.Quantity {
			e.Quantity = held
			changed = true
		}
	}
	if !changed {
		return
	}
	// An entry that counts nothing frees its place under UsageEntriesMax.
	u.Entries = slices.DeleteFunc(u.Entries, func(e UsageEntry) bool { return e.Quantity <= 0 })
	s.docPut(DocUsage, r.CustomerID, u)
}

// limitHeld is what r still holds of what the limit of e counted, or more
// when the lines cannot tell:
//   - a SKU limit on a plain SKU counted the units of its lines; a line
//     merged with a bundle's components of the same position (untagged)
//     holds more, which only keeps more counted;
//   - a SKU limit on a bundle counted bundles: a bundle counts while any of
//     its components is held, from the share of each component's tagged
//     lines still held (lines that lost their tag are left out);
//   - a campaign limit counted units ordered from its pool, which may have
//     fallen back to normal: lines in the pool and in normal count.
func limitHeld(r *Reservation, e *UsageEntry) int64 {
	scope, target, _ := strings.Cut(e.Limit, ":")
	var held int64
	switch scope {
	case LimitScopeSKU:
		plain := false
		type share struct{ total, held int64 }
		components := map[string]*share{}
		for _, l := range r.Lines {
			switch {
			case l.SKU == target && l.Bundle == "":
				plain = true
				held += l.Quantity - l.Refunded
			case l.Bundle == target:
				c, ok := components[l.SKU]
				if !ok {
					c = &share{}
					components[l.SKU] = c
				}
				c.total += l.Quantity
				c.held += l.Quantity - l.Refunded
			}
		}
		if plain {
			return held
		}
		if len(components) == 0 {
			return e.Quantity
		}
		for _, c := range components {
			held = max(held, ceilShare(c.held, e.Ordered, c.total))
		}
		return held
	case LimitScopeCampaign:
		for _, l := range r.Lines {
			if l.Pool == target || l.Pool == PoolDefault {
				held += l.Quantity - l.Refunded
			}
		}
		return held
	}
	return e.Quantity
}

// ceilShare is ceil(part * whole / total) for 0 <= part <= total, 0 <
// total: the product may pass int64 (merged lines), the result cannot
// pass whole.
func ceilShare(part, whole, total int64) int64 {
	hi, lo := bits.Mul64(uint64(part), uint64(whole))
	q, rem := bits.Div64(hi, lo, uint64(total))
	if rem > 0 {
		q++
	}
	return int64(q)
}
