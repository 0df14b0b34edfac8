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
)

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
	t.Docs = append(t.Docs, DocKey{Kind: DocBundle, ID: b.Bundle})
	t.SKUs = append(t.SKUs, b.Bundle)
	t.SKUs = append(t.SKUs, componentSKUs(b.Components)...)
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
	if !s.SKUs[b.Bundle].Bundle {
		return Result{Err: Errorf(CodeUnprocessable, "sku %q was not created as a bundle (bundle: true)", b.Bundle)}
	}
	var existing Bundle
	if s.docGet(DocBundle, b.Bundle, &existing) {
		return Result{Err: Errorf(CodeAlreadyExists, "bundle %q is already defined", b.Bundle)}
	}
	for _, comp := range b.Components {
		if s.SKUs[comp.SKU].Bundle {
			// One level only: a reservation expands a bundle once.
			return Result{Err: InvalidField("components.sku", "%s is a bundle; bundles do not nest", comp.SKU)}
		}
	}
	doc := Bundle{ID: b.Bundle, Components: slices.Clone(b.Components), CreatedAt: s.Now}
	s.docPut(DocBundle, b.Bundle, doc)
	return Result{Object: objectOf(doc), Created: true}
}

// stockIn refuses stock coming into a bundle SKU (a receipt, an increase,
// a purchase order): its stock is its components'.
func (s *BatchState) stockIn(sku string) *Error {
	if s.SKUs[sku].Bundle {
		return Errorf(CodeUnprocessable, "sku %q is a bundle: it holds no stock of its own; stock its components", sku)
	}
	return nil
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
