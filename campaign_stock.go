package stockd

// Stock enters a campaign pool only through allocations, which record
// where it went (PoolStock), so that closing the campaign finds every
// unit to return. A receipt, an increase or a transfer naming a campaign
// pool is refused; units that come back into a closed campaign's position
// (a return restocked, inspected and released, or refunded) go on to
// normal, as a released hold's do.
//
// Stock enters a pool other than normal only once the pool exists: a pool
// created after stock arrived under its name would be a campaign whose
// close cannot find that stock. Since a pool is never deleted and its kind
// never changes, a check made when stock was first promised to a pool (an
// approval's request, a transfer's dispatch) still holds when it lands.

// poolDocTouches names the pool document of a position stock may come into.
func poolDocTouches(k PositionKey, t *Touches) {
	if k.Pool != PoolDefault && k.Pool != "" {
		t.Docs = append(t.Docs, DocKey{Kind: DocPool, ID: k.Pool})
	}
}

// campaignStockIn refuses stock coming into a pool that does not exist,
// or into a campaign's position other than by allocation. The batch must
// have named the pool (poolDocTouches).
func (s *BatchState) campaignStockIn(k PositionKey) *Error {
	if k.Pool == PoolDefault {
		return nil
	}
	var p Pool
	if !s.docGet(DocPool, k.Pool, &p) {
		return Errorf(CodeUnknownPool, "pool %q is unknown: create it first (POST /v1/pools)", k.Pool)
	}
	if p.Kind == PoolCampaign {
		return Errorf(CodeUnprocessable, "stock enters campaign pool %q only through allocations (POST /v1/allocations), so that its close finds it", k.Pool)
	}
	return nil
}
