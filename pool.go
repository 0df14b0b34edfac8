package stockd

import "time"

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

// campaignReturn moves quantity just released at k back to the normal pool
// when k's pool is a closed campaign, so that stock released after the
// close is returned as the leftovers were.
func (s *BatchState) campaignReturn(k PositionKey, quantity int64, businessID, actor string) {
	if k.Pool == PoolDefault {
		return
	}
}
