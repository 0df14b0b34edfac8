package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Authentication, per request of a route that names a scope:
//
//  1. While no key exists and RequireKeys is off, the server is open: the
//     request goes through as before keys existed. Whether a key exists is
//     asked of the store at most once per KeyCacheTTL, and once one does,
//     never again: keys are never deleted, so it stays true.
//  2. Authorization: Bearer sk_… is looked up by the secret's SHA-256, in a
//     bounded memory cache first (keyCache), then in the store. A missing,
//     malformed, unknown or revoked key gets one and the same 401, byte for
//     byte: the answer tells a guesser nothing about which it was.
//  3. The key's token bucket (KeyRequestsPerSecond) may answer 429. It comes
//     before the scope check, so that a key cannot flood the audit trail
//     with refusals faster than it may send requests.
//  4. A key without the route's scope gets 403, and the refusal is written
//     to the audit trail.
//
// No secret is ever compared: storage and the cache are keyed by the
// secret's SHA-256, and a lookup's timing can only reveal how a guess's
// hash compares with stored hashes, which (SHA-256 being preimage
// resistant) says nothing about any secret.

const (
	keyCacheTTLDefault = 5 * time.Second
	// auditWriteTimeout bounds writing one audit event. The write does not
	// end with the request's context: a caller hanging up must not skip it.
	auditWriteTimeout = 2 * time.Second
	// unauthorizedDetail is the detail of every 401: one text, whatever was
	// wrong with the key.
	unauthorizedDetail = "a valid API key is required: Authorization: Bearer sk_..."
)

type keyContextKey struct{}

// keyOf returns the key that authenticated the request, if one did.
func keyOf(ctx context.Context) (stockd.APIKey, bool) {
	key, ok := ctx.Value(keyContextKey{}).(stockd.APIKey)
	return key, ok
}

// authenticator holds the state of authentication shared by all requests.
type authenticator struct {
	store       store.Store
	requireKeys bool
	ttl         time.Duration
	cache       *keyCache
	// limits is nil when the per-key limit is off.
	limits *limiterSet
	// lookups limits key lookups in the store per client address; nil
	// when off.
	lookups *limiterSet

	// keysExist becomes true once a key is seen to exist, and stays true.
	keysExist atomic.Bool
	// logger hears of the switch from open to keys required.
	logger *slog.Logger
	// keysCheckedUntilNanos is when the store must next be asked whether a
	// key exists (unix nanoseconds), while none did.
	keysCheckedUntilNanos atomic.Int64
}

func newAuthenticator(cfg Config) *authenticator {
	ttl := cfg.KeyCacheTTL
	if ttl <= 0 {
		ttl = keyCacheTTLDefault
	}
	return &authenticator{
		store:       cfg.Store,
		requireKeys: cfg.RequireKeys,
		ttl:         ttl,
		cache:       newKeyCache(ttl),
		limits:      newKeyLimits(cfg),
		lookups:     newLookupLimits(cfg),
		logger:      cfg.Logger,
	}
}

// keysFound records that a key exists, once: an open server that now
// refuses keyless requests says so, or its operator learns it from a
// wave of 401s.
func (a *authenticator) keysFound() {
	if a.keysExist.CompareAndSwap(false, true) && !a.requireKeys {
		a.logger.Warn("an API key exists: the server is no longer open, every /v1 request now needs a key with its scope")
	}
}

// required reports whether requests need a key.
func (a *authenticator) required(ctx context.Context, now time.Time) (bool, error) {
	if a.requireKeys || a.keysExist.Load() {
		return true, nil
	}
	if now.UnixNano() < a.keysCheckedUntilNanos.Load() {
		return false, nil
	}
	n, err := a.store.KeyCount(ctx)
	if err != nil {
		return false, err
	}
	if n > 0 {
		a.keysFound()
		return true, nil
	}
	a.keysCheckedUntilNanos.Store(now.Add(a.ttl).UnixNano())
	return false, nil
}

// authenticate returns the live key the request presents; ok is false for
// a missing, malformed, unknown or revoked key. err is a store failure.
func (a *authenticator) authenticate(ctx context.Context, r *http.Request, now time.Time) (key stockd.APIKey, ok bool, err error) {
	secret, ok := bearerSecret(r)
	if !ok {
		return stockd.APIKey{}, false, nil
	}
	hash := stockd.HashAPIKey(secret)
	entry, cached := a.cache.get(hash, now)
	if !cached {
		if a.lookups != nil {
			if wait, allowed := a.lookups.take(now, clientAddress(r)); !allowed {
				return stockd.APIKey{}, false, &lookupsLimited{wait: wait}
			}
		}
		entry.key, err = a.store.KeyGetByHash(ctx, hash)
		switch {
		case errors.Is(err, stockd.ErrNotFound):
			entry.found = false
		case err != nil:
			return stockd.APIKey{}, false, err
		default:
			entry.found = true
		}
		a.cache.put(hash, entry, now)
	}
	if !entry.found || entry.key.Revoked() {
		return stockd.APIKey{}, false, nil
	}
	return entry.key, true, nil
}

// lookupsLimited is authenticate's answer when the client address has
// spent its budget of key lookups.
type lookupsLimited struct{ wait time.Duration }

func (l *lookupsLimited) Error() string { return "key lookups limited for this address" }

// clientAddress is the host the request came from. A proxy in front makes
// every request come from the proxy, which then shares one budget: the
// limit is meant to cost a flood, and the cache keeps known keys out of it.
func clientAddress(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// bearerSecret returns the secret of the one Authorization header, when it
// reads "Bearer sk_…" (the scheme in any case, RFC 9110) with a well-formed
// key.
func bearerSecret(r *http.Request) (string, bool) {
	values := r.Header.Values("Authorization")
	if len(values) != 1 {
		return "", false
	}
	scheme, secret, ok := strings.Cut(values[0], " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !stockd.WellFormedAPIKey(secret) {
		return "", false
	}
	return secret, true
}

// keyCreated tells the authenticator that a key now exists, so that this
// server requires keys from the next request on.
func (a *authenticator) keyCreated() { a.keysFound() }

// keyRevoked forgets what the cache knows of a key revoked through this
// server, so that the revocation holds here at once.
func (a *authenticator) keyRevoked(id string) { a.cache.forget(id) }

// guard wraps a route's handler with authentication, the per-key limit and
// the route's scope. Routes without a scope stay open.
func (s *Server) guard(rt route) http.HandlerFunc {
	if rt.scope == "" {
		return rt.handler
	}
	return func(w http.ResponseWriter, r *http.Request) {
		now := s.now()
		required, err := s.auth.required(r.Context(), now)
		if err != nil {
			s.failure(w, r, err)
			return
		}
		if !required {
			rt.handler(w, r)
			return
		}
		key, ok, err := s.auth.authenticate(r.Context(), r, now)
		if limited, isLimited := errors.AsType[*lookupsLimited](err); isLimited {
			setRetryAfter(w, limited.wait)
			writeProblem(w, stockd.Errorf(stockd.CodeRateLimited, "this address presented more unknown keys than its limit; retry later"))
			return
		}
		if err != nil {
			s.failure(w, r, err)
			return
		}
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="stockd"`)
			writeProblem(w, stockd.Errorf(stockd.CodeUnauthorized, unauthorizedDetail))
			return
		}
		if s.auth.limits != nil {
			if wait, allowed := s.auth.limits.take(now, key.ID); !allowed {
				setRetryAfter(w, wait)
				writeProblem(w, stockd.Errorf(stockd.CodeRateLimited, "key %s sent more requests than its limit; retry later", key.ID))
				return
			}
		}
		if !key.Has(rt.scope) {
			s.audit(r, stockd.NewAuditEvent(now, key.ID, rt.operation, r.Method+" "+r.URL.EscapedPath(),
				stockd.AuditOutcomeForbidden, "missing scope "+string(rt.scope)))
			writeProblem(w, stockd.Errorf(stockd.CodeForbidden, "key %s lacks the %s scope", key.ID, rt.scope))
			return
		}
		rt.handler(w, r.WithContext(context.WithValue(r.Context(), keyContextKey{}, key)))
	}
}

// audit appends e to the audit trail. A failure is logged, not answered:
// the caller's request was decided already.
func (s *Server) audit(r *http.Request, e stockd.AuditEvent) {
	writeAudit(r.Context(), s.store, s.logger, e)
}

// writeAudit appends e, logging a failure; the write outlives ctx's
// cancellation (a caller hanging up must not skip it), within its own
// timeout.
func writeAudit(ctx context.Context, st store.Store, logger *slog.Logger, e stockd.AuditEvent) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), auditWriteTimeout)
	defer cancel()
	if err := st.AuditEventInsert(ctx, e); err != nil {
		logger.Error("audit event not written", "action", e.Action, "key", e.KeyID, "outcome", e.Outcome, "err", err)
	}
}
