package httpapi

import (
	"sync"
	"time"

	"github.com/stockd/stockd"
)

// keyCacheEntriesMax bounds the key cache: every key a database may hold,
// with room to spare for the unknown keys a misconfigured client repeats.
const keyCacheEntriesMax = 10 * stockd.APIKeysMax

// keyCache remembers key lookups by the SHA-256 of the presented secret,
// found or not, for ttl: a request with a known key costs no database read,
// and a key revoked in another process (the command line, another replica)
// stops working within ttl.
type keyCache struct {
	ttl time.Duration

	mu      sync.RWMutex
	entries map[stockd.APIKeyHash]cachedKey
}

// cachedKey is one lookup: the key when found is true.
type cachedKey struct {
	key       stockd.APIKey
	found     bool
	expiresAt time.Time
}

func newKeyCache(ttl time.Duration) *keyCache {
	return &keyCache{ttl: ttl, entries: map[stockd.APIKeyHash]cachedKey{}}
}

// get returns the lookup of hash if it has not expired at now.
func (c *keyCache) get(hash stockd.APIKeyHash, now time.Time) (cachedKey, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	entry, ok := c.entries[hash]
	if !ok || !now.Before(entry.expiresAt) {
		return cachedKey{}, false
	}
	return entry, true
}

// put remembers a lookup until now + ttl. When the cache is full, expired
// entries go first, then an arbitrary one: a forgotten lookup costs one
// database read, nothing more.
func (c *keyCache) put(hash stockd.APIKeyHash, entry cachedKey, now time.Time) {
	entry.expiresAt = now.Add(c.ttl)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.entries[hash]; !ok && len(c.entries) >= keyCacheEntriesMax {
		for h, e := range c.entries {
			if !now.Before(e.expiresAt) {
				delete(c.entries, h)
			}
		}
		for h := range c.entries {
			if len(c.entries) < keyCacheEntriesMax {
				break
			}
			delete(c.entries, h)
		}
	}
	c.entries[hash] = entry
}

// forget drops the lookups of the key with this id.
func (c *keyCache) forget(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for h, e := range c.entries {
		if e.found && e.key.ID == id {
			delete(c.entries, h)
		}
	}
}
