package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/stockd/stockd"
)

// Defaults and bounds of the rate limits. A token bucket per key (and per
// SKU, for reservations) lets a caller send a burst, then its sustained
// rate; an empty bucket is 429 rate_limited with Retry-After.
const (
	keyRequestsPerSecondDefault = 1000
	// keyBucketsMax bounds the per-key buckets: only live keys get one, and
	// a database holds at most stockd.APIKeysMax keys.
	keyBucketsMax = stockd.APIKeysMax
	// skuBucketsMax bounds the per-SKU buckets; beyond it, buckets that
	// have refilled are forgotten first (see limiterSet.bucket).
	skuBucketsMax = 100_000
	// lookupsPerSecondDefault is the default budget of key lookups per
	// client address: enough to warm the cache for a fleet of keys behind
	// one proxy within seconds, far below what a store read costs.
	lookupsPerSecondDefault = 50
	// addressBucketsMax bounds the per-address buckets.
	addressBucketsMax = 100_000
)

// tokenBucket holds up to burst tokens and refills at the set's rate.
type tokenBucket struct {
	tokens    float64
	updatedAt time.Time
}

// limiterSet is one token bucket per name (a key id, a SKU), all of one
// rate and burst, at most sizeMax of them. One mutex guards the set: the
// work under it is a few float operations.
type limiterSet struct {
	ratePerSecond float64
	burst         float64
	sizeMax       int

	mu      sync.Mutex
	buckets map[string]*tokenBucket
}

func newLimiterSet(ratePerSecond float64, burst, sizeMax int) *limiterSet {
	return &limiterSet{
		ratePerSecond: ratePerSecond,
		burst:         float64(max(burst, 1)),
		sizeMax:       sizeMax,
		buckets:       map[string]*tokenBucket{},
	}
}

// newKeyLimits returns the per-key limits of cfg, or nil when they are off.
func newKeyLimits(cfg Config) *limiterSet {
	rate := cfg.KeyRequestsPerSecond
	if rate < 0 {
		return nil
	}
	if rate == 0 {
		rate = keyRequestsPerSecondDefault
	}
	burst := cfg.KeyRequestsBurst
	if burst <= 0 {
		burst = int(min(2*rate, math.MaxInt32))
	}
	return newLimiterSet(rate, burst, keyBucketsMax)
}

// newLookupLimits returns the per-address limits on key lookups of cfg,
// or nil when they are off.
func newLookupLimits(cfg Config) *limiterSet {
	rate := cfg.UnauthenticatedLookupsPerSecond
	if rate < 0 {
		return nil
	}
	if rate == 0 {
		rate = lookupsPerSecondDefault
	}
	return newLimiterSet(rate, int(min(2*rate, math.MaxInt32)), addressBucketsMax)
}

// newSKULimits returns the per-SKU reservation limits of cfg, or nil when
// they are off.
func newSKULimits(cfg Config) *limiterSet {
	rate := cfg.SKUReservationsPerSecond
	if rate <= 0 {
		return nil
	}
	burst := cfg.SKUReservationsBurst
	if burst <= 0 {
		burst = int(min(math.Ceil(rate), math.MaxInt32))
	}
	return newLimiterSet(rate, burst, skuBucketsMax)
}

// take takes one token from the bucket of each name, all or none. names
// must be distinct. When a bucket is empty, it takes nothing and returns
// how long until every bucket holds a token again.
func (l *limiterSet) take(now time.Time, names ...string) (wait time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, name := range names {
		b := l.bucket(name, now)
		if b.tokens < 1 {
			seconds := (1 - b.tokens) / l.ratePerSecond
			wait = max(wait, time.Duration(seconds*float64(time.Second)))
		}
	}
	if wait > 0 {
		return wait, false
	}
	for _, name := range names {
		l.buckets[name].tokens--
	}
	return 0, true
}

// bucket returns name's bucket refilled up to now, creating it full.
//
// Lock should be held.
func (l *limiterSet) bucket(name string, now time.Time) *tokenBucket {
	b, ok := l.buckets[name]
	if !ok {
		if len(l.buckets) >= l.sizeMax {
			l.evict(now)
		}
		b = &tokenBucket{tokens: l.burst, updatedAt: now}
		l.buckets[name] = b
		return b
	}
	// A clock that stepped back refills nothing rather than draining.
	if elapsed := now.Sub(b.updatedAt); elapsed > 0 {
		b.tokens = min(l.burst, b.tokens+elapsed.Seconds()*l.ratePerSecond)
		b.updatedAt = now
	}
	return b
}

// evict makes room for one bucket. A bucket that has refilled is worth
// nothing (a new one starts full), so those go first; if none has, one
// arbitrary bucket goes, forgiving what its name owed: a bounded leak that
// only more than sizeMax names busy at once can cause.
//
// Lock should be held.
func (l *limiterSet) evict(now time.Time) {
	for name, b := range l.buckets {
		if b.tokens+now.Sub(b.updatedAt).Seconds()*l.ratePerSecond >= l.burst {
			delete(l.buckets, name)
		}
	}
	if len(l.buckets) < l.sizeMax {
		return
	}
	for name := range l.buckets {
		delete(l.buckets, name)
		return
	}
}

// setRetryAfter tells the caller, in whole seconds rounded up, when to try
// again.
func setRetryAfter(w http.ResponseWriter, wait time.Duration) {
	seconds := max(int64(math.Ceil(wait.Seconds())), 1)
	w.Header().Set("Retry-After", strconv.FormatInt(seconds, 10))
}
