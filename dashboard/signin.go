package dashboard

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/stockd/stockd"
)

const (
	// signinsPerSecond bounds the key lookups sign-in attempts cost the
	// store, over every visitor: a key has 256 bits, so the limit is not
	// against guessing but against a flood of made-up keys each costing a
	// query. A person signs in far slower than this.
	signinsPerSecond = 5
	signinsBurst     = 20
	// signinRefused is the one answer to every bad key: it does not tell
	// which check failed.
	signinRefused = "That is not a live API key with the read scope."
)

type signinPage struct {
	Error string
}

func (h *Handler) signinForm(w http.ResponseWriter, r *http.Request, v *visitor) {
	h.render(w, r, v, http.StatusOK, "signin", signinPage{})
}

// signin checks the key as the API does (its SHA-256 looked up in the
// store, live, holding read) and starts a session under a new cookie
// value. The key's secret is dropped here: the page never shows it back.
func (h *Handler) signin(w http.ResponseWriter, r *http.Request, v *visitor) {
	now := h.now()
	secret := strings.TrimSpace(r.PostForm.Get("key"))
	if !stockd.WellFormedAPIKey(secret) {
		h.render(w, r, v, http.StatusUnauthorized, "signin", signinPage{Error: signinRefused})
		return
	}
	if !h.signins.take(now) {
		w.Header().Set("Retry-After", "1")
		h.render(w, r, v, http.StatusTooManyRequests, "signin", signinPage{Error: "Too many sign-ins at once; try again in a second."})
		return
	}
	hash := stockd.HashAPIKey(secret)
	key, err := h.store.KeyGetByHash(r.Context(), hash)
	if errors.Is(err, stockd.ErrNotFound) || err == nil && (key.Revoked() || !key.Has(stockd.ScopeRead)) {
		h.render(w, r, v, http.StatusUnauthorized, "signin", signinPage{Error: signinRefused})
		return
	}
	if err != nil {
		h.storeFailed(w, r, v, err)
		return
	}
	h.sessions.drop(v.cookie)
	value := newCookieValue()
	h.sessions.put(value, session{key: key, hash: hash, expires: now.Add(sessionTTL), checkedAt: now}, now)
	setCookie(w, r, value)
	h.logger.Info("dashboard sign-in", "key", key.ID)
	http.Redirect(w, r, basePath+"/", http.StatusSeeOther)
}

// signout ends the session and gives the visitor a new identity.
func (h *Handler) signout(w http.ResponseWriter, r *http.Request, v *visitor) {
	h.sessions.drop(v.cookie)
	setCookie(w, r, newCookieValue())
	http.Redirect(w, r, basePath+"/signin", http.StatusSeeOther)
}

// stillLive asks the store again, at most once per keyRecheckInterval,
// whether the session's key is live and holds read: a key revoked through
// another process ends its sessions within that lapse.
func (h *Handler) stillLive(ctx context.Context, value string, sess session, now time.Time) (bool, error) {
	if now.Sub(sess.checkedAt) < keyRecheckInterval {
		return true, nil
	}
	key, err := h.store.KeyGetByHash(ctx, sess.hash)
	if errors.Is(err, stockd.ErrNotFound) || err == nil && (key.Revoked() || !key.Has(stockd.ScopeRead)) {
		h.sessions.drop(value)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	h.sessions.checked(value, now)
	return true, nil
}

// bucket is a token bucket: rate tokens a second, at most burst.
type bucket struct {
	mu     sync.Mutex
	rate   float64
	burst  float64
	tokens float64
	last   time.Time
}

func newBucket(rate, burst float64) *bucket {
	return &bucket{rate: rate, burst: burst, tokens: burst}
}

func (b *bucket) take(now time.Time) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.last.IsZero() {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.rate)
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}
