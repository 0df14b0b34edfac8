package stockd

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"time"
)

// fuzzInput reads a program; past its end every byte reads as zero.
type fuzzInput struct {
	data []byte
	pos  int
}

func (in *fuzzInput) done() bool { return in.pos >= len(in.data) }

func (in *fuzzInput) byte() byte {
	if in.done() {
		return 0
	}
	b := in.data[in.pos]
	in.pos++
	return b
}

func (in *fuzzInput) pick(n int) int { return int(in.byte()) % n }
func (in *fuzzInput) bool() bool     { return in.byte()&1 == 1 }

func fuzzPick[T any](in *fuzzInput, from []T) T { return from[in.pick(len(from))] }

// quantity is small (1 to 8) for most bytes, so that stock meets demand,
// and one of fuzzQuantities, bounds and beyond, for the rest.
func (in *fuzzInput) quantity() int64 {
	b := in.byte()
	if b < 0xc0 {
		return int64(b%8) + 1
	}
	return fuzzQuantities[int(b)%len(fuzzQuantities)]
}

// text is one of fuzzTexts, or up to fuzzRawTextLengthMax raw bytes.
func (in *fuzzInput) text() string {
	b := in.byte()
	if b < 0xc0 {
		return fuzzTexts[int(b)%len(fuzzTexts)]
	}
	n := int(b) % (fuzzRawTextLengthMax + 1)
	raw := make([]byte, 0, n)
	for range n {
		raw = append(raw, in.byte())
	}
	return string(raw)
}

// time is a time near now (minutes or hours either side), one of
// fuzzTimes, or any time the next bytes make, in any offset.
func (in *fuzzInput) time(now time.Time) time.Time {
	switch b := in.byte(); b % 4 {
	case 0:
		return now.Add(time.Duration(int8(in.byte())) * time.Minute)
	case 1:
		return now.Add(time.Duration(int8(in.byte())) * time.Hour)
	case 2:
		return fuzzTimes[int(b/4)%len(fuzzTimes)]
	default:
		var seconds int64
		for range 8 {
			seconds = seconds<<8 | int64(in.byte())
		}
		nanos := int64(in.byte())<<16 | int64(in.byte())<<8 | int64(in.byte())
		offset := int(int16(uint16(in.byte())<<8|uint16(in.byte()))) * 60
		return time.Unix(seconds, nanos).In(time.FixedZone("", offset%(24*3600)))
	}
}

func (in *fuzzInput) optionalTime(now time.Time) *time.Time {
	if in.pick(8) == 0 {
		return nil
	}
	t := in.time(now)
	return &t
}

func (in *fuzzInput) position() PositionKey {
	return PositionKey{SKU: fuzzPick(in, fuzzSKUs), Location: fuzzPick(in, fuzzLocations), Pool: fuzzPick(in, fuzzPools)}
}

// decodeCommand reads one command: who sends it, under which key, and
// what it asks. The ids of reservations, transfers, purchase orders and
// approvals are those the store holds, or the next NewID will give, so
// that a command reaches one created earlier in its own batch.
func (st *fuzzStore) decodeCommand(in *fuzzInput) Command {
	switch b := in.byte(); {
	case b%16 == 15 && len(st.sent) > 0:
		// A retry: the same command under the same key.
		return st.sent[int(b/16)%len(st.sent)]
	case b%16 == 14 && len(st.sent) > 0:
		c := st.decodeRequest(in)
		c.IdempotencyKey = st.sent[int(b/16)%len(st.sent)].IdempotencyKey
		return c
	}
	return st.decodeRequest(in)
}

func (st *fuzzStore) decodeRequest(in *fuzzInput) Command {
	st.keys++
	c := Command{
		IdempotencyKey: fmt.Sprintf("k%d", st.keys),
		RequestHash:    fmt.Sprintf("h%d", st.keys),
		Actor:          fuzzPick(in, fuzzActors),
		KeyID:          fuzzPick(in, fuzzKeyIDs),
	}
	kind := fuzzPick(in, fuzzKinds)
	now := st.now
	switch kind {
	case KindSKUCreate:
		c.Op = &SKUCreate{SKU: SKU{ID: fuzzPick(in, fuzzSKUs), Name: in.text(), Unit: fuzzPick(in, []string{"", "piece", "gram", "a\x00"}),
			Deduction: fuzzPick(in, fuzzDeductions), ApprovalThreshold: fuzzPick(in, fuzzThresholds), Bundle: in.bool()}}
	case KindLocationCreate:
		c.Op = &LocationCreate{Location: Location{ID: fuzzPick(in, fuzzLocations), Name: in.text(), Priority: fuzzPick(in, fuzzPriorities), Inactive: in.bool()}}
	case KindReceive:
		c.Op = &Receive{Position: in.position(), Quantity: in.quantity(), Reference: in.text()}
	case KindAdjust:
		a := &Adjust{Position: in.position(), Reason: fuzzPick(in, fuzzReasons), Reference: in.text()}
		if in.bool() {
			a.Set, a.SetOnHand = true, in.quantity()-1
			a.ExpectedOnHand = in.quantity() - 1
			if in.bool() {
				// The on_hand the count was taken against, mostly right.
				k := a.Position
				_ = NormalizeKey(&k)
				a.ExpectedOnHand = st.positions[k].OnHand
			}
		} else {
			a.Delta = in.quantity()
			if in.bool() {
				a.Delta = -a.Delta
			}
		}
		c.Op = a
	case KindReserve:
		r := &Reserve{TTL: fuzzPick(in, fuzzTTLs), Commit: in.bool(), Strategy: fuzzPick(in, fuzzStrategies), CustomerID: fuzzPick(in, fuzzCustomers)}
		r.OrderID = fuzzPick(in, fuzzOrders)
		for range in.pick(fuzzLinesMax + 1) {
			k := in.position()
			r.Lines = append(r.Lines, LineRequest{SKU: k.SKU, Location: k.Location, Pool: k.Pool, Quantity: in.quantity()})
		}
		if in.bool() {
			// A pre-assigned id, as the gate's persister sends it.
			r.ID = fmt.Sprintf("g%d", st.keys)
		}
		c.Op = r
	case KindConfirm, KindRelease, KindExpire, KindFulfil:
		tr := &Transition{Action: kind, ReservationID: st.pickID(in, st.reservationIDs)}
		if kind == KindRelease {
			tr.Reason = fuzzPick(in, fuzzRelease)
		}
		if kind == KindFulfil && in.bool() {
			// A partial shipment: lines named as a return names them, of
			// the reservation itself where the store holds it.
			if res, ok := st.reservations[tr.ReservationID]; ok {
				for _, l := range res.Lines {
					if in.bool() {
						sl := ReturnLine{SKU: l.SKU, Quantity: in.quantity()}
						if in.bool() {
							sl.Location, sl.Pool = l.Location, l.Pool
						}
						tr.Lines = append(tr.Lines, sl)
					}
				}
			} else {
				for range in.pick(3) {
					k := in.position()
					tr.Lines = append(tr.Lines, ReturnLine{SKU: k.SKU, Location: k.Location, Pool: k.Pool, Quantity: in.quantity()})
				}
			}
		}
		if kind == KindConfirm && st.keys%2 == 0 {
			// Half the confirms re-reserve when late, chosen from the
			// program's position rather than a byte of its own, so that
			// the corpus keeps meaning what it meant.
			tr.OnLate = OnLateReReserve
		}
		c.Op = tr
		if kind == KindExpire && in.bool() {
			// As the expiry worker sends it.
			c.IdempotencyKey, c.RequestHash = "", ""
		}
	case KindPoolCreate:
		c.Op = &PoolCreate{Pool: Pool{ID: fuzzPick(in, fuzzPools), Kind: fuzzPick(in, []string{PoolChannel, PoolCampaign, PoolCampaign, "flash"}),
			Name: in.text(), FallbackToNormal: in.bool(), StartsAt: in.optionalTime(now), EndsAt: in.optionalTime(now)}}
		c.Op.(*PoolCreate).Pool.Gate = fuzzPick(in, []string{"", "", PoolGateRedis, "memcache"})
	case KindCampaignClose:
		c.Op = &CampaignClose{Pool: fuzzPick(in, fuzzPools)}
	case KindGatePreheat:
		c.Op = &GatePreheat{Pool: fuzzPick(in, fuzzPools)}
	case KindGateException:
		k := in.position()
		c.Op = &GateExceptionRecord{Exception: GateException{ReservationID: st.pickID(in, st.reservationIDs), Pool: fuzzPick(in, fuzzPools),
			Key: in.text(), Lines: []GatePosition{{SKU: k.SKU, Location: k.Location, Quantity: in.quantity()}}, WonAt: in.time(now),
			Code: CodeInsufficientStock, Message: in.text()}}
	case KindAllocate:
		c.Op = &Allocate{SKU: fuzzPick(in, fuzzSKUs), Location: fuzzPick(in, fuzzLocations), FromPool: fuzzPick(in, fuzzPools),
			ToPool: fuzzPick(in, fuzzPools), Quantity: in.quantity(), Reference: in.text()}
	case KindPurchaseOrder:
		po := &PurchaseOrder{ID: fuzzPick(in, fuzzOrderIDs), Supplier: "Acme"}
		if in.bool() {
			po.Supplier = in.text()
		}
		po.ExpectedAt, po.Reference = in.time(now), in.text()
		po.Lines = in.poLines()
		c.Op = po
	case KindPurchaseOrderReceipt:
		id := st.pickID(in, append(slices.Clone(fuzzOrderIDs[1:3]), st.docIDs[DocPurchaseOrder]...))
		r := &PurchaseOrderReceipt{OrderID: id, Reference: in.text()}
		var d PurchaseOrderDoc
		if doc, ok := st.docs[DocKey{Kind: DocPurchaseOrder, ID: id}]; ok && in.bool() && json.Unmarshal(doc.Body, &d) == nil {
			// Lines of the order itself, most of them within what is open.
			for _, l := range d.Lines {
				if in.bool() {
					r.Lines = append(r.Lines, POLineRequest{SKU: l.SKU, Location: l.Location, Quantity: in.quantity()})
				}
			}
		} else {
			r.Lines = in.poLines()
		}
		c.Op = r
	case KindPurchaseOrderCancel:
		c.Op = &PurchaseOrderCancel{OrderID: st.pickID(in, append(slices.Clone(fuzzOrderIDs[1:3]), st.docIDs[DocPurchaseOrder]...))}
	case KindTransfer:
		c.Op = &Transfer{SKU: fuzzPick(in, fuzzSKUs), FromLocation: fuzzPick(in, fuzzLocations), ToLocation: fuzzPick(in, fuzzLocations),
			Pool: fuzzPick(in, fuzzPools), Quantity: in.quantity(), Reference: in.text()}
	case KindTransferReceipt:
		c.Op = &TransferReceipt{TransferID: st.pickID(in, st.docIDs[DocTransfer]), Quantity: in.quantity(), Reference: in.text()}
	case KindTransferCancel:
		c.Op = &TransferCancel{TransferID: st.pickID(in, st.docIDs[DocTransfer])}
	case KindReturn:
		id := st.pickID(in, st.reservationIDs)
		r := &Return{ReservationID: id, Restock: in.bool(), Reference: in.text()}
		if res, ok := st.reservations[id]; ok && in.bool() {
			for _, l := range res.Lines {
				if in.bool() {
					rl := ReturnLine{SKU: l.SKU, Quantity: in.quantity()}
					if in.bool() {
						rl.Location, rl.Pool = l.Location, l.Pool
					}
					r.Lines = append(r.Lines, rl)
				}
			}
		} else {
			for range in.pick(3) {
				r.Lines = append(r.Lines, ReturnLine{SKU: fuzzPick(in, fuzzSKUs), Location: fuzzPick(in, fuzzLocations), Pool: fuzzPick(in, fuzzPools), Quantity: in.quantity()})
			}
		}
		c.Op = r
	case KindQuarantineRelease:
		c.Op = &QuarantineRelease{Position: in.position(), Quantity: in.quantity(), Reference: in.text()}
	case KindQuarantineScrap:
		c.Op = &QuarantineScrap{Position: in.position(), Quantity: in.quantity(), Reason: fuzzPick(in, fuzzReasons), Reference: in.text()}
	case KindMove:
		c.Op = &StockMove{Position: in.position(), Quantity: in.quantity(), From: fuzzPick(in, fuzzStates), To: fuzzPick(in, fuzzStates), Reference: in.text()}
	case KindShipment:
		sh := &Shipment{Reference: in.text()}
		for range in.pick(fuzzLinesMax) + 1 {
			k := in.position()
			sh.Lines = append(sh.Lines, ShipmentLine{SKU: k.SKU, Location: k.Location, Pool: k.Pool, Quantity: in.quantity()})
		}
		c.Op = sh
	case KindLimitSet:
		l := &LimitSet{Scope: fuzzPick(in, []string{LimitScopeSKU, LimitScopeCampaign, "store"}), MaxQuantityPerCustomer: in.quantity(),
			WindowSeconds: fuzzPick(in, fuzzWindowsSeconds)}
		l.Target = fuzzPick(in, fuzzSKUs)
		if l.Scope == LimitScopeCampaign {
			l.Target = fuzzPick(in, fuzzPools)
		}
		c.Op = l
	case KindBundleCreate:
		b := &BundleCreate{Bundle: fuzzPick(in, fuzzSKUs)}
		for range in.pick(4) {
			b.Components = append(b.Components, BundleComponent{SKU: fuzzPick(in, fuzzSKUs), Quantity: fuzzPick(in, []int64{1, 2, 3, 1, BundleComponentQuantityMax, BundleComponentQuantityMax + 1, 0})})
		}
		c.Op = b
	case KindLocationUpdate:
		u := &LocationUpdate{ID: fuzzPick(in, fuzzLocations)}
		if in.bool() {
			name := in.text()
			u.Name = &name
		}
		if in.bool() {
			p := fuzzPick(in, fuzzPriorities)
			u.Priority = &p
		}
		if in.bool() {
			active := in.bool()
			u.Active = &active
		}
		c.Op = u
	case KindSKUUpdate:
		u := &SKUUpdate{ID: fuzzPick(in, fuzzSKUs)}
		if in.bool() {
			name := in.text()
			u.Name = &name
		}
		if in.bool() {
			d := fuzzPick(in, fuzzDeductions)
			u.Deduction = &d
		}
		if in.bool() {
			t := fuzzPick(in, fuzzThresholds)
			u.ApprovalThreshold = &t
		}
		if in.bool() {
			u.Replenishment = fuzzReplenishment(in)
		}
		c.Op = u
	case KindReplenishmentDefaultsUpdate:
		d := ReplenishmentDefaults{ReplenishmentSettings: fuzzReplenishment(in)}
		if in.bool() {
			sd := fuzzPick(in, fuzzColdStartStddevs)
			d.ColdStartStddevDaily = &sd
		}
		c.Op = &ReplenishmentDefaultsUpdate{Defaults: d}
	case KindExtend:
		c.Op = &Extend{ReservationID: st.pickID(in, st.reservationIDs), TTL: fuzzPick(in, fuzzTTLs)}
	case KindApprove, KindReject:
		c.Op = &ApprovalDecision{ID: st.pickID(in, st.docIDs[DocApproval]), Reject: kind == KindReject}
	}
	return c
}

func (in *fuzzInput) poLines() []POLineRequest {
	var lines []POLineRequest
	for range in.pick(fuzzLinesMax) + 1 {
		lines = append(lines, POLineRequest{SKU: fuzzPick(in, fuzzSKUs), Location: fuzzPick(in, fuzzLocations), Quantity: in.quantity()})
	}
	return lines
}

// pickID names one of known, one of the next ids NewID gives (made by an
// earlier command of the same batch), or one that never exists.
func (st *fuzzStore) pickID(in *fuzzInput, known []string) string {
	b := in.byte()
	switch {
	case b%4 != 3 && len(known) > 0:
		return known[int(b/4)%len(known)]
	case b%8 == 7:
		return "nope"
	}
	return fmt.Sprintf("id%d", st.ids+1+int(b/8)%3)
}

// Replenishment settings at, inside and beyond their bounds.
var (
	fuzzServiceLevels    = []float64{0.95, 0.5, 0.999, 0.49, 1, math.NaN()}
	fuzzLeadTimes        = []float64{7, 0, 365, -1, 366, math.Inf(1)}
	fuzzCoverDays        = []int{30, 1, 730, 0, 731}
	fuzzMultiples        = []int64{50, 1, QuantityMax, 0, -1}
	fuzzColdStartStddevs = []float64{1, 0, -1, math.NaN()}
	fuzzCategories       = []string{"shoes", "", "bad\x00"}
)

func fuzzReplenishment(in *fuzzInput) ReplenishmentSettings {
	var r ReplenishmentSettings
	if in.bool() {
		v := fuzzPick(in, fuzzServiceLevels)
		r.ServiceLevel = &v
	}
	if in.bool() {
		v := fuzzPick(in, fuzzLeadTimes)
		r.LeadTimeDays = &v
	}
	if in.bool() {
		v := fuzzPick(in, fuzzCoverDays)
		r.CoverDays = &v
	}
	if in.bool() {
		v := fuzzPick(in, fuzzMultiples)
		r.OrderMultiple = &v
	}
	if in.bool() {
		v := fuzzPick(in, fuzzCategories)
		r.Category = &v
	}
	return r
}
