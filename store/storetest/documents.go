package storetest

import (
	"testing"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// testDocuments: documents insert at version 1, lock and read back in key
// order, list by kind in id pages, and an update must name the version it
// replaces (a stale write fails instead of overwriting).
func testDocuments(t *testing.T, h *flowtest.Harness) {
	at := time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)
	doc := func(kind, id string, version int64, body string) stockd.Document {
		return stockd.Document{DocKey: stockd.DocKey{Kind: kind, ID: id}, Version: version,
			Body: []byte(body), CreatedAt: at, UpdatedAt: at.Add(time.Duration(version) * time.Second)}
	}
	if err := h.WriteDocs(doc("pool", "b", 1, `{"n":1}`), doc("pool", "a", 1, `{"n":2}`), doc("bundle", "a", 1, `{"n":3}`)); err != nil {
		t.Fatalf("insert: %v", err)
	}
	if err := h.WriteDocs(doc("pool", "a", 1, `{}`)); err == nil {
		t.Fatal("inserting an existing document succeeded")
	}

	tx, err := h.Store.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	keys := []stockd.DocKey{{Kind: "bundle", ID: "a"}, {Kind: "pool", ID: "a"}, {Kind: "pool", ID: "b"}, {Kind: "pool", ID: "zz"}}
	locked, err := tx.DocumentsLock(ctx, keys)
	if err != nil {
		t.Fatal(err)
	}
	if len(locked) != 3 {
		t.Fatalf("locked %d documents, want 3 (the missing one left out)", len(locked))
	}
	for i, d := range locked {
		if d.DocKey != keys[i] || d.Version != 1 || !d.CreatedAt.Equal(at) {
			t.Fatalf("locked[%d] = %+v, want %v at version 1", i, d, keys[i])
		}
	}
	if err := tx.Write(ctx, &stockd.BatchWrites{Documents: []stockd.Document{doc("pool", "a", 2, `{"n":20}`)}}); err != nil {
		t.Fatalf("update: %v", err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}

	got, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: "pool", ID: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 2 || !flowtest.JSONEqual(got.Body, `{"n":20}`) || !got.UpdatedAt.Equal(at.Add(2*time.Second)) || !got.CreatedAt.Equal(at) {
		t.Fatalf("after update: %+v body %s", got, got.Body)
	}
	if err := h.WriteDocs(doc("pool", "a", 2, `{"n":21}`)); err == nil {
		t.Fatal("a second write of version 2 succeeded: the version guard is missing")
	}
	if _, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: "pool", ID: "zz"}); !isNotFound(err) {
		t.Fatalf("missing document: err = %v, want not found", err)
	}

	page, err := h.Store.DocumentList(ctx, store.DocumentListParams{Kind: "pool", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 1 || page[0].ID != "a" {
		t.Fatalf("first page = %+v, want pool a", page)
	}
	page, err = h.Store.DocumentList(ctx, store.DocumentListParams{Kind: "pool", After: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 1 || page[0].ID != "b" || !flowtest.JSONEqual(page[0].Body, `{"n":1}`) {
		t.Fatalf("second page = %+v, want pool b", page)
	}
}
