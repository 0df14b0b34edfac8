package stockd

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Pool kinds. The normal pool (PoolDefault) has no document: it always
// exists, never closes and never falls back.
const (
	// PoolChannel reserves a slice of stock for one sales channel
	// (offline, marketplace).
	PoolChannel = "channel"
	// PoolCampaign holds stock for a campaign: sellable only inside its
	// window, and returned to normal when it closes.
	PoolCampaign = "campaign"
)

// PoolGateRedis is the one gate a campaign pool may name (Pool.Gate):
// reservations of the pool are decided in Redis first and persisted
// through the engine after (package gate).
const PoolGateRedis = "redis"

// DocPoolStock is the document (id = pool name) listing where a campaign
// pool holds stock. It is kept apart from the Pool document on purpose:
// every reservation against the pool reads the Pool document, and only
// allocations and the close read this one, so that naming every position
// of the pool (poolTouches) never widens the locks of a reservation.
const DocPoolStock = "pool_stock"

// PoolPositionsMax bounds the (SKU, location) pairs one campaign pool may
// hold stock at: the close locks and changes all of them in one batch.
const PoolPositionsMax = 1000

const KindPoolCreate CommandKind = "pool_create"

// Pool is the document (DocPool, id = pool name) describing a pool other
// than normal. Positions of the pool exist per SKU and location like any
// other; the document says when and how they may be sold.
type Pool struct {
	ID   string `json:"pool"`
	Kind string `json:"kind"`
	Name string `json:"name,omitempty"`
	// FallbackToNormal lets a line naming this pool take stock from the
	// normal pool when the pool itself cannot hold it (channels only).
	FallbackToNormal bool `json:"fallback_to_normal,omitempty"`
	// StartsAt and EndsAt bound a campaign's window: reservations are
	// refused before StartsAt and from EndsAt on.
	StartsAt *time.Time `json:"starts_at,omitempty"`
	EndsAt   *time.Time `json:"ends_at,omitempty"`
	// ClosedAt is set once, when the campaign's leftovers went back to
	// normal; the pool then takes no reservations.
	ClosedAt  *time.Time `json:"closed_at,omitempty"`
	CreatedAt time.Time  `json:"created_at"`
	// Gate, when PoolGateRedis, sends the campaign's reservations through
	// the Redis gate; the database stays the ledger they are persisted to.
	Gate string `json:"gate,omitempty"`
	// PreheatLeadSeconds, for a gated campaign, preheats its gate on its
	// own that long before StartsAt (0: only an operator preheats).
	PreheatLeadSeconds int64 `json:"preheat_lead_seconds,omitempty"`
}

// PreheatLeadSecondsMax bounds Pool.PreheatLeadSeconds: a day.
const PreheatLeadSecondsMax = 86400

// PreheatDue reports whether a gated campaign with a preheat lead is
// inside its lead at now: from StartsAt minus the lead until EndsAt, and
// not closed.
func (p Pool) PreheatDue(now time.Time) bool {
	if p.Gate != PoolGateRedis || p.PreheatLeadSeconds <= 0 || p.ClosedAt != nil || p.StartsAt == nil {
		return false
	}
	from := p.StartsAt.Add(-time.Duration(p.PreheatLeadSeconds) * time.Second)
	return !now.Before(from) && (p.EndsAt == nil || now.Before(*p.EndsAt))
}

// Sellable reports whether reservations may take stock from the pool at
// now: always for a channel; for a campaign only inside its window and
// before it closes.
func (p Pool) Sellable(now time.Time) bool {
	if p.ClosedAt != nil {
		return false
	}
	if p.Kind != PoolCampaign {
		return true
	}
	if p.StartsAt != nil && now.Before(*p.StartsAt) {
		return false
	}
	return p.EndsAt == nil || now.Before(*p.EndsAt)
}

// Pool states, as a reader of stock totals needs them: why a pool's
// available stock is not for every buyer now.
const (
	PoolStateChannel  = "channel"  // only orders of the channel take it
	PoolStateNotOpen  = "not_open" // a campaign before its window
	PoolStateEnded    = "ended"    // a campaign past its window, not yet closed
	PoolStateClosed   = "closed"   // a closed campaign: held units return to normal when released
	PoolStateOpen     = "open"     // a campaign inside its window: any order naming it may buy
	PoolStateNoRecord = "unknown"  // a pool without a document (stock from before pools were checked)
)

// State says whether the pool's stock is for sale to any buyer at now.
func (p Pool) State(now time.Time) string {
	switch {
	case p.Kind != PoolCampaign:
		return PoolStateChannel
	case p.ClosedAt != nil:
		return PoolStateClosed
	case p.StartsAt != nil && now.Before(*p.StartsAt):
		return PoolStateNotOpen
	case p.EndsAt != nil && !now.Before(*p.EndsAt):
		return PoolStateEnded
	}
	return PoolStateOpen
}

// PoolStock is the DocPoolStock document: the (SKU, location) pairs an
// allocation ever moved stock to in a campaign pool.
type PoolStock struct {
	Pool      string          `json:"pool"`
	Positions []PoolStockItem `json:"positions"`
}

// PoolStockItem is one place a campaign pool holds stock.
type PoolStockItem struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
}

// PoolCreate defines a pool. A pool is never redefined: its positions and
// reservations were decided under the first definition.
type PoolCreate struct {
	Pool Pool
}

func (p *PoolCreate) Kind() CommandKind { return KindPoolCreate }

func (p *PoolCreate) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocPool, ID: p.Pool.ID}, DocKey{Kind: DocPoolStock, ID: p.Pool.ID})
}

func (p *PoolCreate) normalize() *Error {
	pool := &p.Pool
	if !ValidIdentifier(pool.ID) {
		return InvalidField("pool", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if pool.ID == PoolDefault {
		return Errorf(CodeAlreadyExists, "pool %q always exists", PoolDefault)
	}
	if err := validText("name", pool.Name, NameLengthMax, false); err != nil {
		return err
	}
	pool.ClosedAt = nil
	if pool.Gate != "" && (pool.Gate != PoolGateRedis || pool.Kind != PoolCampaign) {
		return InvalidField("gate", "only a campaign may name a gate, and only %q", PoolGateRedis)
	}
	if pool.PreheatLeadSeconds < 0 || pool.PreheatLeadSeconds > PreheatLeadSecondsMax {
		return InvalidField("preheat_lead_seconds", "must be 0 to %d", PreheatLeadSecondsMax)
	}
	if pool.PreheatLeadSeconds > 0 && pool.Gate == "" {
		return InvalidField("preheat_lead_seconds", "only a pool with a gate is preheated")
	}
	switch pool.Kind {
	case PoolChannel:
		if pool.StartsAt != nil || pool.EndsAt != nil {
			return InvalidField("starts_at", "only a campaign has a window")
		}
	case PoolCampaign:
		if pool.FallbackToNormal {
			return InvalidField("fallback_to_normal", "only a channel falls back to normal")
		}
		if pool.StartsAt == nil || pool.EndsAt == nil {
			return InvalidField("ends_at", "a campaign needs starts_at and ends_at")
		}
		// What both databases keep, so that the stored window is the one
		// decided on.
		starts, err := NormalizeTime("starts_at", *pool.StartsAt)
		if err != nil {
			return err
		}
		ends, err := NormalizeTime("ends_at", *pool.EndsAt)
		if err != nil {
			return err
		}
		if !ends.After(starts) {
			return InvalidField("ends_at", "must be after starts_at")
		}
		pool.StartsAt, pool.EndsAt = &starts, &ends
	default:
		return InvalidField("kind", "must be one of channel, campaign")
	}
	return nil
}

func (p *PoolCreate) decide(s *BatchState, c *Command) Result {
	var existing Pool
	if s.docGet(DocPool, p.Pool.ID, &existing) {
		return Result{Err: Errorf(CodeAlreadyExists, "pool %q already exists", p.Pool.ID)}
	}
	pool := p.Pool
	pool.CreatedAt = s.Now
	s.docPut(DocPool, pool.ID, pool)
	if pool.Kind == PoolCampaign {
		// Created with the pool, so that every allocation into it locks a
		// row that exists rather than racing to insert it.
		s.docPut(DocPoolStock, pool.ID, PoolStock{Pool: pool.ID, Positions: []PoolStockItem{}})
	}
	return Result{Object: objectOf(pool), Created: true}
}

// poolTouches adds what closing a campaign pool reads beyond its
// documents: every SKU it holds stock of, and the normal positions its
// leftovers go back to.
func poolTouches(d *Document, t *Touches) {
	var ps PoolStock
	if err := json.Unmarshal(d.Body, &ps); err != nil {
		panic(fmt.Sprintf("stockd: document %s/%s not decodable: %v", d.Kind, d.ID, err))
	}
	for _, p := range ps.Positions {
		t.SKUs = append(t.SKUs, p.SKU)
		t.Ensure = append(t.Ensure, PositionKey{SKU: p.SKU, Location: p.Location, Pool: PoolDefault})
	}
}

// poolStockAdd records that the campaign pool holds stock of sku at
// location, refusing past PoolPositionsMax.
func (s *BatchState) poolStockAdd(pool, sku, location string) *Error {
	var ps PoolStock
	if !s.docGet(DocPoolStock, pool, &ps) {
		ps = PoolStock{Pool: pool}
	}
	item := PoolStockItem{SKU: sku, Location: location}
	if slices.Contains(ps.Positions, item) {
		return nil
	}
	if len(ps.Positions) >= PoolPositionsMax {
		return InvalidField("to_pool", "pool %q already holds stock at %d positions, the most a campaign may", pool, PoolPositionsMax)
	}
	ps.Positions = append(ps.Positions, item)
	s.docPut(DocPoolStock, pool, ps)
	return nil
}

// campaignReturn moves quantity just released at k back to the normal pool
// when k's pool is a closed campaign, so that stock released after the
// close is returned as the leftovers were. The entry's business id is
// businessID and the pool: one release or refund may return stock from
// several closed campaigns into the same normal position, and pool ids
// cannot hold a "/".
func (s *BatchState) campaignReturn(k PositionKey, quantity int64, businessID, reservationID, actor string) {
	if k.Pool == PoolDefault {
		return
	}
	var p Pool
	if !s.docGet(DocPool, k.Pool, &p) || p.Kind != PoolCampaign || p.ClosedAt == nil {
		return
	}
	// Never more than is free there: what else the position holds is still
	// promised to other orders.
	q := min(quantity, s.peek(k).Available())
	if q <= 0 {
		return
	}
	s.poolMove(k, PoolDefault, q, LedgerEntry{BusinessType: BusinessCampaignReturn, BusinessID: businessID + "/" + k.Pool, ReservationID: reservationID, Actor: actor})
}

// poolMove moves q of on_hand from position from to the same SKU and
// location in pool to, with one ledger entry at each end.
func (s *BatchState) poolMove(from PositionKey, to string, q int64, entry LedgerEntry) {
	s.change(from, Counters{OnHand: -q}, entry)
	s.change(PositionKey{SKU: from.SKU, Location: from.Location, Pool: to}, Counters{OnHand: q}, entry)
}
