package dashboard

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"sync"
	"time"

	"github.com/stockd/stockd"
)

// Sessions. Every visitor carries one cookie, stockd_ui: 32 random bytes,
// HttpOnly (no script reads it), SameSite=Strict (no other site's page
// sends it) and Path=/ui. Signing in with a key turns the visitor into a
// session in a bounded table in memory, under a new cookie value (so that
// a value planted before sign-in is worth nothing after it); signing out
// deletes the session and changes the value again. The table keeps the
// SHA-256 of each value, not the value, and the key's id, scopes and hash,
// never its secret.
//
// CSRF: every form carries a token, the HMAC of the visitor's cookie value
// under a secret the process draws at start. A POST whose token does not
// match its cookie, or whose Origin names another host, is refused before
// anything is read. The token needs no table (a visitor who has not signed
// in has one too, for the sign-in form itself) and dies with the cookie.

const (
	cookieName = "stockd_ui"
	// cookieValueBytes makes the value unguessable: 256 bits.
	cookieValueBytes = 32
	// sessionsMax bounds the table. Only a live key with the read scope
	// makes a session, so filling it takes keys; when it is full the
	// session closest to its end makes room.
	sessionsMax = 1024
	// sessionTTL is a session's whole life, whatever its activity: a
	// dashboard left open on a shared screen signs itself out by the next
	// working day.
	sessionTTL = 8 * time.Hour
	// keyRecheckInterval is how long a session trusts its key without
	// asking the store again, and so how long a key revoked elsewhere
	// keeps a session alive: the API's key cache has the same lapse.
	keyRecheckInterval = 5 * time.Second
	// cookieMaxAgeSeconds keeps the cookie for the visitor's whole session.
	cookieMaxAgeSeconds = int(sessionTTL / time.Second)
)

// session is one signed-in visitor.
type session struct {
	key       stockd.APIKey
	hash      stockd.APIKeyHash
	expires   time.Time
	checkedAt time.Time
}

type sessionID [sha256.Size]byte

// sessions is the bounded table of signed-in visitors.
type sessions struct {
	mu     sync.Mutex
	byID   map[sessionID]*session
	secret []byte // the CSRF tokens' HMAC key
}

func newSessions() *sessions {
	secret := make([]byte, 32)
	// crypto/rand.Read never fails (it panics on a broken system source).
	_, _ = rand.Read(secret)
	return &sessions{byID: map[sessionID]*session{}, secret: secret}
}

func idOf(value string) sessionID { return sha256.Sum256([]byte(value)) }

// get returns a copy of the session under value, if one is live at now.
func (s *sessions) get(value string, now time.Time) (session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := idOf(value)
	sess, ok := s.byID[id]
	if !ok {
		return session{}, false
	}
	if !now.Before(sess.expires) {
		delete(s.byID, id)
		return session{}, false
	}
	return *sess, true
}

// put stores a session under value, making room when the table is full.
func (s *sessions) put(value string, sess session, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.byID) >= sessionsMax {
		s.evict(now)
	}
	s.byID[idOf(value)] = &sess
}

// evict drops expired sessions, and when none was, the one ending first.
// Lock should be held.
func (s *sessions) evict(now time.Time) {
	var first sessionID
	var firstEnds time.Time
	dropped := false
	for id, sess := range s.byID {
		if !now.Before(sess.expires) {
			delete(s.byID, id)
			dropped = true
			continue
		}
		if firstEnds.IsZero() || sess.expires.Before(firstEnds) {
			first, firstEnds = id, sess.expires
		}
	}
	if !dropped && !firstEnds.IsZero() {
		delete(s.byID, first)
	}
}

// checked records that the session's key was found live at now.
func (s *sessions) checked(value string, now time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.byID[idOf(value)]; ok {
		sess.checkedAt = now
	}
}

func (s *sessions) drop(value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, idOf(value))
}

// token is the CSRF token of the visitor whose cookie holds value.
func (s *sessions) token(value string) string {
	mac := hmac.New(sha256.New, s.secret)
	mac.Write([]byte("csrf\x00" + value))
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// validToken compares in constant time: the token is a secret of the
// visitor's.
func (s *sessions) validToken(value, token string) bool {
	return value != "" && hmac.Equal([]byte(s.token(value)), []byte(token))
}

// newCookieValue draws a fresh visitor identity.
func newCookieValue() string {
	b := make([]byte, cookieValueBytes)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// cookieValue returns the visitor's cookie value, when it has the shape
// newCookieValue gives.
func cookieValue(r *http.Request) string {
	c, err := r.Cookie(cookieName)
	if err != nil {
		return ""
	}
	b, err := base64.RawURLEncoding.DecodeString(c.Value)
	if err != nil || len(b) != cookieValueBytes {
		return ""
	}
	return c.Value
}

// setCookie gives the visitor value. Secure is set when the request came
// over TLS: a dashboard served on plain loopback HTTP must still work.
func setCookie(w http.ResponseWriter, r *http.Request, value string) {
	http.SetCookie(w, &http.Cookie{
		Name: cookieName, Value: value, Path: basePath,
		MaxAge: cookieMaxAgeSeconds, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode,
	})
}
