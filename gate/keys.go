package gate

// Every key of a campaign carries the pool's id as a hash tag ({pool}), so
// that one campaign's keys live on one Redis Cluster slot and one script
// may touch them all. Pool, SKU and location ids hold neither braces nor
// "/" (stockd.ValidIdentifier), so the tag and the fields are unambiguous.

func (g *Gate) key(pool, part string) string { return g.prefix + "{" + pool + "}:" + part }

func (g *Gate) stockKey(pool, field string) string { return g.key(pool, "stock:"+field) }

func (g *Gate) streamKey(pool string) string { return g.key(pool, "stream") }

// field names a position of the pool in the gate's hashes.
func field(sku, location string) string { return sku + "/" + location }

// markKey holds the seq of the newest ledger entry the position's stock
// key already counts (returnScript, fillScript).
func (g *Gate) markKey(pool, field string) string { return g.key(pool, "mark:"+field) }
