package stockd

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"
)

func fuzzCheckReservation(r Reservation) error {
	if err := fuzzCheckValue(r); err != nil {
		return fmt.Errorf("reservation %q: %w", r.ID, err)
	}
	for _, l := range r.Lines {
		if l.Quantity <= 0 || l.Refunded < 0 || l.Shipped < 0 || l.Returned < 0 || l.Refunded+l.Shipped > l.Quantity || l.Returned > l.Shipped {
			return fmt.Errorf("reservation %q: line %+v", r.ID, l)
		}
		if r.Status == StatusPending && (l.Refunded != 0 || l.Shipped != 0 || l.Returned != 0) {
			return fmt.Errorf("pending reservation %q gave back or shipped stock: %+v", r.ID, l)
		}
		// Fulfilled means nothing is left to ship; anything else open or
		// over means nothing shipped (a refund of every unshipped unit of a
		// reservation that shipped some fulfils it).
		switch {
		case r.Status == StatusFulfilled && l.Unshipped() != 0:
			return fmt.Errorf("fulfilled reservation %q left units unshipped: %+v", r.ID, l)
		case (r.Status == StatusReleased || r.Status == StatusExpired) && l.Shipped != 0:
			return fmt.Errorf("%s reservation %q shipped units: %+v", r.Status, r.ID, l)
		}
	}
	return nil
}

// fuzzDocTypes are the types the documents of each kind decode into.
var fuzzDocTypes = map[string]func() any{
	DocPool:          func() any { return &Pool{} },
	DocPoolStock:     func() any { return &PoolStock{} },
	DocBundle:        func() any { return &Bundle{} },
	DocLimit:         func() any { return &PurchaseLimit{} },
	DocUsage:         func() any { return &Usage{} },
	DocTransfer:      func() any { return &TransferDoc{} },
	DocPurchaseOrder: func() any { return &PurchaseOrderDoc{} },
	DocApproval:      func() any { return &Approval{} },
	DocSettings:      func() any { return &Settings{} },

	DocReplenishment:         func() any { return &ReplenishmentSettings{} },
	DocReplenishmentDefaults: func() any { return &ReplenishmentDefaults{} },
	DocGate:                  func() any { return &GateState{} },
	DocGateException:         func() any { return &GateException{} },
}

func fuzzCheckDocument(d Document) error {
	if len(d.Body) > DocumentSizeMax {
		return fmt.Errorf("document %s/%s: %d bytes, above DocumentSizeMax", d.Kind, d.ID, len(d.Body))
	}
	newDoc, ok := fuzzDocTypes[d.Kind]
	if !ok {
		return fmt.Errorf("document %s/%s: a kind the test does not know", d.Kind, d.ID)
	}
	v := newDoc()
	dec := json.NewDecoder(bytes.NewReader(d.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("document %s/%s does not decode: %w: %s", d.Kind, d.ID, err, d.Body)
	}
	if err := fuzzCheckValue(v); err != nil {
		return fmt.Errorf("document %s/%s: %w: %s", d.Kind, d.ID, err, d.Body)
	}
	if err := fuzzCheckValue(d); err != nil {
		return fmt.Errorf("document %s/%s: %w", d.Kind, d.ID, err)
	}
	if u, ok := v.(*Usage); ok && len(u.Entries) > UsageEntriesMax {
		return fmt.Errorf("usage of %s holds %d entries, above UsageEntriesMax", u.Customer, len(u.Entries))
	}
	return nil
}

var timeType = reflect.TypeFor[time.Time]()

// fuzzCheckValue checks every time and string within v as the databases
// need them: a time with a UTC year from TimeYearMin to TimeYearMax, in
// microseconds (what both keep), that encodes as JSON; text without a
// NUL or another control character, in UTF-8.
func fuzzCheckValue(v any) error {
	return fuzzCheckReflect(reflect.ValueOf(v), "")
}

func fuzzCheckReflect(v reflect.Value, path string) error {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil
		}
		return fuzzCheckReflect(v.Elem(), path)
	case reflect.Struct:
		if v.Type() == timeType {
			tm := v.Interface().(time.Time)
			if y := tm.UTC().Year(); y < TimeYearMin || y > TimeYearMax {
				return fmt.Errorf("%s: time %v has its UTC year outside %d to %d", path, tm, TimeYearMin, TimeYearMax)
			}
			if tm.Nanosecond()%1000 != 0 {
				return fmt.Errorf("%s: time %v finer than the microsecond both databases keep", path, tm)
			}
			if _, err := tm.MarshalJSON(); err != nil {
				return fmt.Errorf("%s: time %v: %w", path, tm, err)
			}
			return nil
		}
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				if err := fuzzCheckReflect(v.Field(i), path+"."+f.Name); err != nil {
					return err
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bodies and answers: checked once decoded
		}
		for i := range v.Len() {
			if err := fuzzCheckReflect(v.Index(i), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			if err := fuzzCheckReflect(v.MapIndex(k), fmt.Sprintf("%s[%v]", path, k)); err != nil {
				return err
			}
		}
	case reflect.String:
		if !PlainText(v.String()) {
			return fmt.Errorf("%s: text %q holds a control character or is not UTF-8", path, v.String())
		}
	}
	return nil
}

// checkBooks checks what the store holds as a whole: valid counters;
// reserved, committed, in transit and incoming as the reservations,
// transfers and purchase orders make them; nothing held by a bundle SKU;
// a campaign's stock where its close will find it, and none left
// available in a closed one.
func (st *fuzzStore) checkBooks() error {
	want := map[PositionKey]Counters{}
	add := func(k PositionKey, d Counters) { want[k] = want[k].Add(d) }
	for _, r := range st.reservations {
		for _, l := range r.Lines {
			held := l.Unshipped()
			switch r.Status {
			case StatusPending:
				add(l.Key(), Counters{Reserved: held})
			case StatusConfirmed:
				add(l.Key(), Counters{Committed: held})
			}
		}
	}
	pools := map[string]Pool{}
	stocks := map[string]PoolStock{}
	for k, d := range st.docs {
		switch k.Kind {
		case DocTransfer:
			var tr TransferDoc
			mustUnmarshal(d.Body, &tr)
			add(tr.to(), Counters{InTransit: tr.Outstanding()})
		case DocPurchaseOrder:
			var po PurchaseOrderDoc
			mustUnmarshal(d.Body, &po)
			if po.Status == POOpen {
				for _, l := range po.Lines {
					add(l.key(), Counters{Incoming: l.Open()})
				}
			}
		case DocPool:
			var p Pool
			mustUnmarshal(d.Body, &p)
			pools[k.ID] = p
		case DocPoolStock:
			var ps PoolStock
			mustUnmarshal(d.Body, &ps)
			stocks[k.ID] = ps
		}
	}
	for k, c := range st.positions {
		if !c.Valid() {
			return fmt.Errorf("position %+v: counters %+v", k, c)
		}
		w := want[k]
		if c.Reserved != w.Reserved || c.Committed != w.Committed || c.InTransit != w.InTransit || c.Incoming != w.Incoming {
			return fmt.Errorf("position %+v holds %+v, but the reservations, transfers and orders make %+v", k, c, w)
		}
		delete(want, k)
		if st.skus[k.SKU].Bundle && c != (Counters{}) {
			return fmt.Errorf("bundle sku %q holds stock at %+v: %+v", k.SKU, k, c)
		}
		p, ok := pools[k.Pool]
		if !ok && k.Pool != PoolDefault && c != (Counters{}) {
			return fmt.Errorf("position %+v holds %+v in a pool never created: a campaign created under its name later would not find it", k, c)
		}
		if !ok || p.Kind != PoolCampaign {
			continue
		}
		if p.ClosedAt != nil && c.Available() != 0 {
			return fmt.Errorf("closed campaign %q has %d available at %+v: stranded, no order can take it", k.Pool, c.Available(), k)
		}
		if c.OnHand > 0 && !slices.Contains(stocks[k.Pool].Positions, PoolStockItem{SKU: k.SKU, Location: k.Location}) {
			return fmt.Errorf("campaign %q holds %+v at %+v, which its stock list does not name: its close will not find it", k.Pool, c, k)
		}
	}
	for k, w := range want {
		if w != (Counters{}) {
			return fmt.Errorf("no position %+v, but the reservations, transfers and orders make %+v", k, w)
		}
	}
	return nil
}

func mustUnmarshal(body []byte, v any) {
	if err := json.Unmarshal(body, v); err != nil {
		panic(fmt.Sprintf("stored document does not decode: %v", err))
	}
}
