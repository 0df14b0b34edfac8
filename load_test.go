package stockd

import (
	"context"
	"fmt"
	"slices"
	"testing"
)

// docsSeen records the document keys a batch locks.
type docsSeen struct {
	fuzzReader
	keys []DocKey
}

func (r *docsSeen) DocumentsLock(ctx context.Context, keys []DocKey) ([]Document, error) {
	r.keys = append(r.keys, keys...)
	return r.fuzzReader.DocumentsLock(ctx, keys)
}

func (r *docsSeen) BatchRowsRead(ctx context.Context, t *Touches) (*BatchRows, error) {
	return ReadBatchRowsInTurn(ctx, r, t)
}

// TestPlainSKUsSkipBundleLookup: a SKU read plain is not looked up as a
// bundle again, while a bundle SKU always is (its definition names the
// positions to lock).
func TestPlainSKUsSkipBundleLookup(t *testing.T) {
	st := newFuzzStore()
	ids := 0
	newID := func() string { ids++; return fmt.Sprintf("id-%d", ids) }
	reserve := func(sku string) []Command {
		return []Command{{Op: &Reserve{Lines: []LineRequest{{SKU: sku, Quantity: 1}}}}}
	}
	for i, tc := range []struct {
		sku        string
		wantLookup bool
	}{
		{"a", true},   // not known yet
		{"a", false},  // read plain by the batch before
		{"kit", true}, // a bundle
		{"kit", true}, // is never remembered
		{"zz", true},  // an unknown SKU
		{"zz", true},  // is not remembered as plain
	} {
		r := &docsSeen{fuzzReader: fuzzReader{st}}
		if _, _, err := LoadBatch(context.Background(), r, reserve(tc.sku), st.now, newID, &st.plain); err != nil {
			t.Fatal(err)
		}
		bundleKey := DocKey{Kind: DocBundle, ID: tc.sku}
		if got := slices.Contains(r.keys, bundleKey); got != tc.wantLookup {
			t.Errorf("batch %d on %s: bundle looked up %v, want %v", i, tc.sku, got, tc.wantLookup)
		}
	}
}
