package stockd

import (
	"encoding/json"
	"fmt"
	"time"
)

// Document kinds. A document is a versioned JSON record of the domain that
// is not a counter: the definitions that shape decisions (pools, bundles,
// purchase limits) and the workflows that move stock in steps (transfers,
// purchase orders, pending approvals), plus each customer's usage of a
// limit. Storage keeps them opaque; this package alone gives them meaning.
// The books themselves (positions, reservations, ledger) stay in typed
// columns under CHECK constraints.
const (
	DocPool          = "pool"
	DocBundle        = "bundle"
	DocLimit         = "limit"
	DocUsage         = "usage"
	DocTransfer      = "transfer"
	DocPurchaseOrder = "purchase_order"
	DocApproval      = "approval"
)

// DocKey names one document.
type DocKey struct {
	Kind string
	ID   string
}

// Less orders keys by (kind, id): the lock order of documents.
func (k DocKey) Less(o DocKey) bool {
	if k.Kind != o.Kind {
		return k.Kind < o.Kind
	}
	return k.ID < o.ID
}

// Document is one stored document. Version counts its writes, from 1.
type Document struct {
	DocKey
	Version   int64
	Body      []byte // JSON
	CreatedAt time.Time
	UpdatedAt time.Time
}

// docGet decodes the document named by kind and id into v and reports
// whether it exists. A document the batch wrote is read back as written.
func (s *BatchState) docGet(kind, id string, v any) bool {
	d, ok := s.Docs[DocKey{Kind: kind, ID: id}]
	if !ok {
		return false
	}
	if err := json.Unmarshal(d.Body, v); err != nil {
		panic(fmt.Sprintf("stockd: document %s/%s not decodable: %v", kind, id, err))
	}
	return true
}

// docPut stores v as the document named by kind and id, created or
// replaced, for this batch's later decisions and for the write.
func (s *BatchState) docPut(kind, id string, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("stockd: document %s/%s not encodable: %v", kind, id, err))
	}
	if len(body) > DocumentSizeMax {
		panic(fmt.Sprintf("stockd: document %s/%s is %d bytes, above DocumentSizeMax", kind, id, len(body)))
	}
	k := DocKey{Kind: kind, ID: id}
	d, ok := s.Docs[k]
	if !ok {
		d = &Document{DocKey: k, CreatedAt: s.Now}
		s.Docs[k] = d
	}
	d.Body = body
	d.UpdatedAt = s.Now
	if !s.docsDirty[k] {
		d.Version++
		s.docsDirty[k] = true
	}
}
