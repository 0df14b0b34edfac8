package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// apiKeyRoutes: listing keys needs admin, not read: who holds which scopes
// is the admin's business.
func (s *Server) apiKeyRoutes() []route {
	return []route{
		{"POST /v1/keys", "key_create", stockd.ScopeAdmin, s.createKey},
		{"GET /v1/keys", "key_list", stockd.ScopeAdmin, s.listKeys},
		{"POST /v1/keys/{id}/revoke", "key_revoke", stockd.ScopeAdmin, s.revokeKey},
	}
}

// APIKey is a key as listings show it: never its secret.
type APIKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Prefix is "sk_" and the first 8 characters of the secret after it.
	Prefix    string    `json:"prefix"`
	Scopes    []string  `json:"scopes"`
	CreatedAt time.Time `json:"created_at"`
	// RevokedAt is absent while the key is live.
	RevokedAt *time.Time `json:"revoked_at,omitempty"`
}

// CreatedAPIKey is the answer of POST /v1/keys: the key and, this once,
// its secret.
type CreatedAPIKey struct {
	APIKey
	Secret string `json:"secret"`
}

// APIKeyList is the answer of GET /v1/keys.
type APIKeyList struct {
	Keys []APIKey `json:"keys"`
}

type keyRequest struct {
	Name   string   `json:"name"`
	Scopes []string `json:"scopes"`
}

func keyOut(k stockd.APIKey) APIKey {
	out := APIKey{ID: k.ID, Name: k.Name, Prefix: k.Prefix, Scopes: make([]string, 0, len(k.Scopes)), CreatedAt: k.CreatedAt.UTC()}
	for _, scope := range k.Scopes {
		out.Scopes = append(out.Scopes, string(scope))
	}
	if k.Revoked() {
		revokedAt := k.RevokedAt.UTC()
		out.RevokedAt = &revokedAt
	}
	return out
}

// The key endpoints talk to the store, not the engine: keys change no
// stock. They take no Idempotency-Key. Creation cannot be replayed, since
// the secret it answers is never stored: a caller who lost the answer
// lists the keys, finds the new one by name and revokes it. Revocation is
// idempotent by nature: revoking twice keeps the first time.

func (s *Server) createKey(w http.ResponseWriter, r *http.Request) {
	body, verr := readBody(w, r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	var req keyRequest
	if verr := decodeStrict(body, &req); verr != nil {
		writeProblem(w, verr)
		return
	}
	now := s.now()
	key, secret, hash, err := stockd.NewAPIKey(req.Name, req.Scopes, now)
	var badInput *stockd.Error
	if errors.As(err, &badInput) {
		writeProblem(w, badInput)
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	err = s.store.KeyCreate(r.Context(), store.KeyCreateParams{Key: key, Hash: hash})
	if errors.Is(err, stockd.ErrLimitReached) {
		writeProblem(w, stockd.Errorf(stockd.CodeUnprocessable, "at most %d keys may exist, revoked keys included", stockd.APIKeysMax))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	s.auth.keyCreated()
	s.audit(r, stockd.NewAuditEvent(now, actingKeyID(r), "key_create", key.ID, stockd.AuditOutcomeDone,
		fmt.Sprintf("name %q, scopes %s", key.Name, scopeNames(key.Scopes))))
	// The secret is in this answer only: no cache may keep it.
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusCreated, CreatedAPIKey{APIKey: keyOut(key), Secret: secret})
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	keys, err := s.store.KeyList(r.Context())
	if err != nil {
		s.failure(w, r, err)
		return
	}
	out := APIKeyList{Keys: make([]APIKey, 0, len(keys))}
	for _, k := range keys {
		out.Keys = append(out.Keys, keyOut(k))
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) revokeKey(w http.ResponseWriter, r *http.Request) {
	id, verr := pathIdentifier(r, "id")
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	body, verr := readBody(w, r)
	if verr != nil {
		writeProblem(w, verr)
		return
	}
	if verr := decodeOptional(body, &emptyRequest{}); verr != nil {
		writeProblem(w, verr)
		return
	}
	now := s.now()
	key, err := s.store.KeyRevoke(r.Context(), store.KeyRevokeParams{ID: id, At: now})
	if errors.Is(err, stockd.ErrNotFound) {
		writeProblem(w, stockd.Errorf(stockd.CodeNotFound, "api key %s not found", id))
		return
	}
	if err != nil {
		s.failure(w, r, err)
		return
	}
	s.auth.keyRevoked(key.ID)
	s.audit(r, stockd.NewAuditEvent(now, actingKeyID(r), "key_revoke", key.ID, stockd.AuditOutcomeDone, ""))
	writeJSON(w, http.StatusOK, keyOut(key))
}

// actingKeyID is the id of the key that authenticated r; empty while the
// server runs open.
func actingKeyID(r *http.Request) string {
	key, _ := keyOf(r.Context())
	return key.ID
}

func scopeNames(scopes []stockd.Scope) string {
	names := make([]string, len(scopes))
	for i, scope := range scopes {
		names[i] = string(scope)
	}
	return strings.Join(names, ",")
}
