package storetest

import (
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// newKey makes a key at the harness's clock and fails t on an error.
func newKey(h *flowtest.Harness, name string, scopes ...string) (stockd.APIKey, stockd.APIKeyHash) {
	h.T.Helper()
	key, _, hash, err := stockd.NewAPIKey(name, scopes, h.Clock.Now())
	if err != nil {
		h.T.Fatalf("new api key: %v", err)
	}
	return key, hash
}

func testKeyLifecycle(t *testing.T, h *flowtest.Harness) {
	if n, err := h.Store.KeyCount(ctx); err != nil || n != 0 {
		t.Fatalf("KeyCount of a new store = %d, %v; want 0", n, err)
	}
	orders, ordersHash := newKey(h, "orders", "read", "reserve")
	h.Clock.Advance(time.Second)
	admin, adminHash := newKey(h, "admin", "admin")
	for _, p := range []store.KeyCreateParams{{Key: orders, Hash: ordersHash}, {Key: admin, Hash: adminHash}} {
		if err := h.Store.KeyCreate(ctx, p); err != nil {
			t.Fatalf("KeyCreate(%s): %v", p.Key.Name, err)
		}
	}
	got, err := h.Store.KeyGetByHash(ctx, ordersHash)
	if err != nil || !reflect.DeepEqual(got, orders) {
		t.Fatalf("KeyGetByHash = %+v, %v; want %+v", got, err, orders)
	}
	if _, err := h.Store.KeyGetByHash(ctx, stockd.HashAPIKey("sk_unknown")); !isNotFound(err) {
		t.Fatalf("KeyGetByHash(unknown) error = %v, want ErrNotFound", err)
	}
	keys, err := h.Store.KeyList(ctx)
	if err != nil || !reflect.DeepEqual(keys, []stockd.APIKey{orders, admin}) {
		t.Fatalf("KeyList = %+v, %v; want orders then admin", keys, err)
	}

	revokedAt := h.Clock.Now().Add(5 * time.Second).Truncate(time.Microsecond)
	revoked, err := h.Store.KeyRevoke(ctx, store.KeyRevokeParams{ID: orders.ID, At: revokedAt})
	if err != nil || !revoked.RevokedAt.Equal(revokedAt) || revoked.ID != orders.ID {
		t.Fatalf("KeyRevoke = %+v, %v; want orders revoked at %v", revoked, err, revokedAt)
	}
	again, err := h.Store.KeyRevoke(ctx, store.KeyRevokeParams{ID: orders.ID, At: revokedAt.Add(time.Hour)})
	if err != nil || !again.RevokedAt.Equal(revokedAt) {
		t.Fatalf("KeyRevoke again = %+v, %v; want the first revocation time %v kept", again, err, revokedAt)
	}
	if got, err := h.Store.KeyGetByHash(ctx, ordersHash); err != nil || !got.Revoked() {
		t.Fatalf("KeyGetByHash(revoked) = %+v, %v; want the key, revoked", got, err)
	}
	if _, err := h.Store.KeyRevoke(ctx, store.KeyRevokeParams{ID: "key_unknown", At: revokedAt}); !isNotFound(err) {
		t.Fatalf("KeyRevoke(unknown) error = %v, want ErrNotFound", err)
	}
	if n, err := h.Store.KeyCount(ctx); err != nil || n != 2 {
		t.Fatalf("KeyCount = %d, %v; want 2, the revoked key included", n, err)
	}
}

func testKeyHashUnique(t *testing.T, h *flowtest.Harness) {
	first, hash := newKey(h, "first", "read")
	if err := h.Store.KeyCreate(ctx, store.KeyCreateParams{Key: first, Hash: hash}); err != nil {
		t.Fatal(err)
	}
	second, _ := newKey(h, "second", "admin")
	if err := h.Store.KeyCreate(ctx, store.KeyCreateParams{Key: second, Hash: hash}); err == nil {
		t.Fatal("a second key with the same hash was stored")
	}
	if n, err := h.Store.KeyCount(ctx); err != nil || n != 1 {
		t.Fatalf("KeyCount = %d, %v; want 1", n, err)
	}
}

// testKeyCreateBounded creates keys from many goroutines at once against a
// small bound: the count and the insert must be one step, or two creators
// could both see room for one more.
func testKeyCreateBounded(t *testing.T, h *flowtest.Harness) {
	const keysMax, creators = 5, 12
	params := make([]store.KeyCreateParams, creators)
	for i := range params {
		key, hash := newKey(h, "k", "read")
		params[i] = store.KeyCreateParams{Key: key, Hash: hash, KeysMax: keysMax}
	}
	errs := make([]error, creators)
	var wg sync.WaitGroup
	for i := range params {
		wg.Go(func() { errs[i] = h.Store.KeyCreate(ctx, params[i]) })
	}
	wg.Wait()
	created := 0
	for _, err := range errs {
		switch {
		case err == nil:
			created++
		case !errors.Is(err, stockd.ErrLimitReached):
			t.Fatalf("KeyCreate: %v, want nil or ErrLimitReached", err)
		}
	}
	n, err := h.Store.KeyCount(ctx)
	if err != nil || created != keysMax || n != keysMax {
		t.Fatalf("%d creations succeeded, KeyCount = %d, %v; want %d and %d", created, n, err, keysMax, keysMax)
	}
}
