package stockd

const KindCampaignClose CommandKind = "campaign_close"

// CampaignClose returns every position's available leftover of a campaign
// pool to the normal pool at the same location, once: the pool document's
// ClosedAt makes a later close (under another key) answer the closed pool
// and change nothing. What is reserved or committed at the close stays
// until it is released (returned then, by campaignReturn) or shipped.
type CampaignClose struct {
	Pool string
}

func (cc *CampaignClose) Kind() CommandKind { return KindCampaignClose }

// Touches names the pool's documents; the positions follow from its stock
// list (poolTouches, through DocumentTouches), which Touches cannot know.
func (cc *CampaignClose) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocPool, ID: cc.Pool}, DocKey{Kind: DocPoolStock, ID: cc.Pool})
}

func (cc *CampaignClose) normalize() *Error {
	if !ValidIdentifier(cc.Pool) {
		return InvalidField("pool", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	return nil
}

func (cc *CampaignClose) decide(s *BatchState, c *Command) Result {
	var p Pool
	if !s.docGet(DocPool, cc.Pool, &p) {
		return Result{Err: Errorf(CodeNotFound, "pool %q not found", cc.Pool)}
	}
	if p.Kind != PoolCampaign {
		return Result{Err: Errorf(CodeInvalidTransition, "pool %q is a %s, not a campaign", cc.Pool, p.Kind)}
	}
	if p.ClosedAt != nil {
		return Result{Object: objectOf(p)}
	}
	var ps PoolStock
	s.docGet(DocPoolStock, cc.Pool, &ps)
	for _, item := range ps.Positions {
		k := PositionKey{SKU: item.SKU, Location: item.Location, Pool: cc.Pool}
		if left := s.peek(k).Available(); left > 0 {
			// The pool's name is the business id: a pool is closed once
			// ever, so the ledger's uniqueness backs the document's flag.
			s.poolMove(k, PoolDefault, left, LedgerEntry{BusinessType: BusinessCampaignClose, BusinessID: cc.Pool, Actor: c.Actor})
		}
	}
	now := s.Now
	p.ClosedAt = &now
	s.docPut(DocPool, cc.Pool, p)
	return Result{Object: objectOf(p)}
}
