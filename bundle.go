package stockd

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// KindBundleCreate defines a bundle.
const KindBundleCreate CommandKind = "bundle_create"

// Bounds of a bundle definition. They keep one reserved line's expansion
// small: a 100-line order of bundles names at most 1000 component lines.
const (
	BundleComponentsMax              = 10
	BundleComponentQuantityMax int64 = 1000
	// BundlesPerComponentMax bounds the bundles one SKU is a component of,
	// and so the size of its BundleParents document.
	BundlesPerComponentMax = 1000
)

// DocBundleParents is the document (id = a component SKU) listing the
// bundles a SKU is a component of: the reverse of the bundle documents,
// read under lock when a bundle is defined so that no SKU is ever both a
// component and a bundle, whichever definition comes first.
const DocBundleParents = "bundle_parents"

// BundleParents is the DocBundleParents document.
type BundleParents struct {
	SKU     string   `json:"sku"`
	Bundles []string `json:"bundles"`
}

// BundleComponent is quantity units of a component SKU in one bundle.
type BundleComponent struct {
	SKU      string `json:"sku"`
	Quantity int64  `json:"quantity"`
}

// Bundle is the document (DocBundle, id = bundle SKU) defining a bundle or
// kit. The bundle SKU itself holds no stock: reserving it reserves its
// components. Components are sorted by SKU and are never bundles
// themselves.
type Bundle struct {
	ID         string            `json:"bundle"`
	Components []BundleComponent `json:"components"`
	CreatedAt  time.Time         `json:"created_at"`
}

// BundleCreate defines a bundle once; a definition is never replaced, so
// that reservations already holding components stay what the bundle is.
type BundleCreate struct {
	Bundle     string
	Components []BundleComponent
}

// Kind is KindBundleCreate.
func (b *BundleCreate) Kind() CommandKind { return KindBundleCreate }

// Touches names the bundle's document, each component's (a component must
// not be a bundle), and the SKUs, to read that they exist.
func (b *BundleCreate) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocBundle, ID: b.Bundle}, DocKey{Kind: DocBundleParents, ID: b.Bundle})
	t.SKUs = append(t.SKUs, b.Bundle)
	for _, c := range b.Components {
		t.Docs = append(t.Docs, DocKey{Kind: DocBundle, ID: c.SKU}, DocKey{Kind: DocBundleParents, ID: c.SKU})
		t.SKUs = append(t.SKUs, c.SKU)
	}
}

func (b *BundleCreate) normalize() *Error {
	if !ValidIdentifier(b.Bundle) {
		return InvalidField("bundle", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if len(b.Components) == 0 || len(b.Components) > BundleComponentsMax {
		return InvalidField("components", "must hold 1 to %d components", BundleComponentsMax)
	}
	for _, c := range b.Components {
		if !ValidIdentifier(c.SKU) {
			return InvalidField("components.sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
		}
		if c.SKU == b.Bundle {
			return InvalidField("components.sku", "a bundle cannot contain itself")
		}
		if c.Quantity <= 0 || c.Quantity > BundleComponentQuantityMax {
			return InvalidField("components.quantity", "must be an integer from 1 to %d", BundleComponentQuantityMax)
		}
	}
	slices.SortFunc(b.Components, func(x, y BundleComponent) int { return strings.Compare(x.SKU, y.SKU) })
	for i := 1; i < len(b.Components); i++ {
		if b.Components[i].SKU == b.Components[i-1].SKU {
			return InvalidField("components.sku", "%s is listed twice", b.Components[i].SKU)
		}
	}
	return nil
}

func (b *BundleCreate) decide(s *BatchState, c *Command) Result {
	for _, sku := range append([]string{b.Bundle}, componentSKUs(b.Components)...) {
		if _, ok := s.SKUs[sku]; !ok {
			return Result{Err: Errorf(CodeUnknownSKU, "sku %q is unknown", sku)}
		}
	}
	var existing Bundle
	if s.docGet(DocBundle, b.Bundle, &existing) {
		return Result{Err: Errorf(CodeAlreadyExists, "bundle %q is already defined", b.Bundle)}
	}
	for _, comp := range b.Components {
		if s.docGet(DocBundle, comp.SKU, &existing) {
			// One level only: a reservation expands a bundle once.
			return Result{Err: InvalidField("components.sku", "%s is a bundle; bundles do not nest", comp.SKU)}
		}
	}
	var parents BundleParents
	if s.docGet(DocBundleParents, b.Bundle, &parents) && len(parents.Bundles) > 0 {
		return Result{Err: InvalidField("bundle", "%s is a component of bundle %s; bundles do not nest", b.Bundle, parents.Bundles[0])}
	}
	if s.holdsStock(b.Bundle) {
		// Its units would be stranded: reservations take components.
		return Result{Err: Errorf(CodeUnprocessable, "sku %q holds stock of its own; a bundle holds none", b.Bundle)}
	}
	for _, comp := range b.Components {
		p := BundleParents{SKU: comp.SKU}
		s.docGet(DocBundleParents, comp.SKU, &p)
		if len(p.Bundles) >= BundlesPerComponentMax {
			return Result{Err: InvalidField("components.sku", "%s is a component of %d bundles already", comp.SKU, len(p.Bundles))}
		}
	}
	for _, comp := range b.Components {
		p := BundleParents{SKU: comp.SKU}
		s.docGet(DocBundleParents, comp.SKU, &p)
		p.Bundles = append(p.Bundles, b.Bundle)
		s.docPut(DocBundleParents, comp.SKU, p)
	}
	doc := Bundle{ID: b.Bundle, Components: slices.Clone(b.Components), CreatedAt: s.Now}
	s.docPut(DocBundle, b.Bundle, doc)
	return Result{Object: orderObject(doc), Created: true}
}

// stockInTouches names the bundle document of a SKU that stock is about to
// come into, so that stockIn can refuse a bundle.
func stockInTouches(sku string, t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocBundle, ID: sku})
}

// stockIn refuses stock coming into a bundle SKU (a receipt, an increase,
// a purchase order): its stock is its components', and units on its own
// positions could never be reserved. The batch must have named the SKU
// with stockInTouches.
func (s *BatchState) stockIn(sku string) *Error {
	if _, ok := s.Docs[DocKey{Kind: DocBundle, ID: sku}]; ok {
		return Errorf(CodeUnprocessable, "sku %q is a bundle: it holds no stock of its own; stock its components", sku)
	}
	return nil
}

// holdsStock reports whether any position of sku has, or expects, units.
func (s *BatchState) holdsStock(sku string) bool {
	for k, c := range s.Positions {
		if k.SKU == sku && (c.OnHand > 0 || c.InTransit > 0 || c.Incoming > 0) {
			return true
		}
	}
	return false
}

func componentSKUs(cs []BundleComponent) []string {
	skus := make([]string, len(cs))
	for i, c := range cs {
		skus[i] = c.SKU
	}
	return skus
}

// bundleTouches adds the component SKUs of a bundle document, so that a
// batch reserving the bundle locks the positions it takes stock from.
func bundleTouches(d *Document, t *Touches) {
	var b Bundle
	if err := json.Unmarshal(d.Body, &b); err != nil {
		panic(fmt.Sprintf("stockd: bundle document %s not decodable: %v", d.ID, err))
	}
	t.SKUs = append(t.SKUs, componentSKUs(b.Components)...)
}

// BundleAvailable is how many whole bundles the components' available
// quantities make: the least, over components, of available divided by
// the quantity one bundle needs. available maps component SKU to its
// available quantity.
func BundleAvailable(b Bundle, available map[string]int64) int64 {
	var n int64 = -1
	for _, c := range b.Components {
		k := max(available[c.SKU], 0) / c.Quantity
		if n < 0 || k < n {
			n = k
		}
	}
	return max(n, 0)
}

func orderObject(v any) json.RawMessage {
	body, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("stockd: answer not encodable: %v", err))
	}
	return body
}
