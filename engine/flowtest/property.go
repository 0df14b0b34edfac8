package flowtest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/audit"
)

// The flow model is the rules of refunds, returns, quarantine, moves,
// transfers and purchase orders written out plainly: counters per
// position, and what each reservation, transfer and order still allows.
type flowModel struct {
	counters     map[stockd.PositionKey]stockd.Counters
	reservations map[string]*flowReservation
	transfers    map[string]*flowTransfer
	orders       map[string]*flowOrder
}

type flowReservation struct {
	key                                   stockd.PositionKey
	status                                stockd.ReservationStatus
	quantity, refunded, shipped, returned int64
}

// unshipped is what a confirmed reservation still holds.
func (res *flowReservation) unshipped() int64 { return res.quantity - res.refunded - res.shipped }

type flowTransfer struct {
	from, to    stockd.PositionKey
	outstanding int64
	cancelled   bool
}

type flowOrder struct {
	key       stockd.PositionKey
	open      int64
	cancelled bool
}

func (m *flowModel) add(k stockd.PositionKey, d stockd.Counters) {
	m.counters[k] = m.counters[k].Add(d)
}

// flowRun is one rapid case: SKUs of its own in the harness's store, so
// that cases share the store but not the positions.
type flowRun struct {
	h       *Harness
	prefix  string
	model   flowModel
	keys    int
	history []flowSent
}

type flowSent struct {
	cmd    stockd.Command
	answer []byte
}

var flowPropertyLocations = []string{"default", "pw1"}

func (r *flowRun) skus() []string { return []string{r.prefix + "a", r.prefix + "b"} }

func (r *flowRun) position(t *rapid.T) stockd.PositionKey {
	return stockd.PositionKey{
		SKU:      rapid.SampledFrom(r.skus()).Draw(t, "sku"),
		Location: rapid.SampledFrom(flowPropertyLocations).Draw(t, "location"),
		Pool:     stockd.PoolDefault,
	}
}

func (r *flowRun) submit(t *rapid.T, cmd stockd.Command) stockd.Result {
	r.keys++
	cmd.IdempotencyKey = fmt.Sprintf("%sk%d", r.prefix, r.keys)
	cmd.RequestHash = cmd.IdempotencyKey
	res, err := r.h.Engine.Submit(context.Background(), cmd)
	if err != nil {
		t.Fatalf("%s: %v", cmd.Kind(), err)
	}
	if !res.Unstored {
		answer, _ := json.Marshal(res)
		r.history = append(r.history, flowSent{cmd: cmd, answer: answer})
	}
	return res
}

func expect(t *rapid.T, what string, res stockd.Result, code string) {
	t.Helper()
	got := ""
	if res.Err != nil {
		got = res.Err.Code
	}
	if got != code {
		t.Fatalf("%s: got error %q (%v), model expects %q", what, got, res.Err, code)
	}
}

func pick[V any](t *rapid.T, m map[string]V, label string) (string, V) {
	if len(m) == 0 {
		t.Skip("none yet")
	}
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	// Map order is random: sort, so that rapid can shrink.
	slices.Sort(ids)
	id := rapid.SampledFrom(ids).Draw(t, label)
	return id, m[id]
}

func (r *flowRun) receive(t *rapid.T) {
	k := r.position(t)
	q := rapid.Int64Range(1, 20).Draw(t, "quantity")
	expect(t, "receive", r.submit(t, stockd.Command{Op: &stockd.Receive{Position: k, Quantity: q}}), "")
	r.model.add(k, stockd.Counters{OnHand: q})
}

func (r *flowRun) sell(t *rapid.T) {
	k := r.position(t)
	q := rapid.Int64Range(1, 8).Draw(t, "quantity")
	res := r.submit(t, stockd.Command{Op: &stockd.Reserve{
		Lines: []stockd.LineRequest{{SKU: k.SKU, Location: k.Location, Quantity: q}}, Commit: true,
	}})
	if r.model.counters[k].Available() < q {
		expect(t, "reserve", res, stockd.CodeInsufficientStock)
		return
	}
	expect(t, "reserve", res, "")
	r.model.add(k, stockd.Counters{Committed: q})
	r.model.reservations[res.Reservation.ID] = &flowReservation{key: k, status: stockd.StatusConfirmed, quantity: q}
}

func (r *flowRun) fulfil(t *rapid.T) {
	id, res := pick(t, r.model.reservations, "reservation")
	got := r.submit(t, stockd.Command{Op: &stockd.Transition{Action: stockd.KindFulfil, ReservationID: id}})
	switch res.status {
	case stockd.StatusConfirmed:
		expect(t, "fulfil", got, "")
		held := res.unshipped()
		r.model.add(res.key, stockd.Counters{Committed: -held, OnHand: -held})
		res.shipped += held
		res.status = stockd.StatusFulfilled
	case stockd.StatusFulfilled:
		expect(t, "fulfil again", got, "")
	default:
		expect(t, "fulfil "+string(res.status), got, stockd.CodeInvalidTransition)
	}
}

// ship fulfils part of a reservation: a confirmed one ships what it still
// holds, and is fulfilled once nothing is left.
func (r *flowRun) ship(t *rapid.T) {
	id, res := pick(t, r.model.reservations, "reservation")
	q := rapid.Int64Range(1, 5).Draw(t, "quantity")
	got := r.submit(t, stockd.Command{Op: &stockd.Transition{Action: stockd.KindFulfil, ReservationID: id,
		Lines: []stockd.ReturnLine{{SKU: res.key.SKU, Quantity: q}}}})
	switch {
	case res.status != stockd.StatusConfirmed:
		expect(t, "ship part of a "+string(res.status), got, stockd.CodeInvalidTransition)
	case q > res.unshipped():
		expect(t, "ship beyond the line", got, stockd.CodeQuantityExceeded)
	default:
		expect(t, "ship part", got, "")
		r.model.add(res.key, stockd.Counters{Committed: -q, OnHand: -q})
		if res.shipped += q; res.unshipped() == 0 {
			res.status = stockd.StatusFulfilled
		}
	}
}

func (r *flowRun) giveBack(t *rapid.T) {
	id, res := pick(t, r.model.reservations, "reservation")
	q := rapid.Int64Range(1, 5).Draw(t, "quantity")
	restock := rapid.Bool().Draw(t, "restock")
	got := r.submit(t, stockd.Command{Op: &stockd.Return{
		ReservationID: id, Restock: restock, Lines: []stockd.ReturnLine{{SKU: res.key.SKU, Quantity: q}},
	}})
	switch res.status {
	case stockd.StatusConfirmed:
		if q > res.unshipped() {
			expect(t, "refund", got, stockd.CodeQuantityExceeded)
			return
		}
		expect(t, "refund", got, "")
		r.model.add(res.key, stockd.Counters{Committed: -q})
		res.refunded += q
		switch {
		case res.refunded == res.quantity:
			res.status = stockd.StatusReleased
		case res.unshipped() == 0:
			// Part shipped, the rest refunded.
			res.status = stockd.StatusFulfilled
		}
	case stockd.StatusFulfilled:
		if q > res.quantity-res.refunded-res.returned {
			expect(t, "return", got, stockd.CodeQuantityExceeded)
			return
		}
		expect(t, "return", got, "")
		delta := stockd.Counters{OnHand: q, Quarantined: q}
		if restock {
			delta.Quarantined = 0
		}
		r.model.add(res.key, delta)
		res.returned += q
	default:
		expect(t, "return of "+string(res.status), got, stockd.CodeInvalidTransition)
	}
}

func (r *flowRun) quarantine(t *rapid.T) {
	k := r.position(t)
	q := rapid.Int64Range(1, 5).Draw(t, "quantity")
	step := rapid.SampledFrom([]string{"quarantine", "unquarantine", "release", "scrap"}).Draw(t, "step")
	var cmd stockd.Command
	switch step {
	case "quarantine", "unquarantine":
		from, to := stockd.StateAvailable, stockd.StateQuarantined
		if step == "unquarantine" {
			from, to = to, from
		}
		cmd = stockd.Command{Op: &stockd.StockMove{Position: k, From: from, To: to, Quantity: q}}
	case "release":
		cmd = stockd.Command{Op: &stockd.QuarantineRelease{Position: k, Quantity: q}}
	case "scrap":
		cmd = stockd.Command{Op: &stockd.QuarantineScrap{Position: k, Quantity: q}}
	}
	got := r.submit(t, cmd)
	c := r.model.counters[k]
	switch {
	case step == "quarantine" && c.Available() < q:
		expect(t, step, got, stockd.CodeInsufficientStock)
	case step != "quarantine" && c.Quarantined < q:
		expect(t, step, got, stockd.CodeQuantityExceeded)
	default:
		expect(t, step, got, "")
		delta := stockd.Counters{Quarantined: -q}
		switch step {
		case "quarantine":
			delta.Quarantined = q
		case "scrap":
			delta.OnHand = -q
		}
		r.model.add(k, delta)
	}
}

func (r *flowRun) transfer(t *rapid.T) {
	sku := rapid.SampledFrom(r.skus()).Draw(t, "sku")
	from, to := flowPropertyLocations[0], flowPropertyLocations[1]
	if rapid.Bool().Draw(t, "backwards") {
		from, to = to, from
	}
	q := rapid.Int64Range(1, 8).Draw(t, "quantity")
	got := r.submit(t, stockd.Command{Op: &stockd.Transfer{SKU: sku, FromLocation: from, ToLocation: to, Quantity: q}})
	fk := stockd.PositionKey{SKU: sku, Location: from, Pool: stockd.PoolDefault}
	tk := stockd.PositionKey{SKU: sku, Location: to, Pool: stockd.PoolDefault}
	if r.model.counters[fk].Available() < q {
		expect(t, "transfer", got, stockd.CodeInsufficientStock)
		return
	}
	expect(t, "transfer", got, "")
	var d stockd.TransferDoc
	if err := json.Unmarshal(got.Object, &d); err != nil {
		t.Fatal(err)
	}
	r.model.add(fk, stockd.Counters{OnHand: -q})
	r.model.add(tk, stockd.Counters{InTransit: q})
	r.model.transfers[d.ID] = &flowTransfer{from: fk, to: tk, outstanding: q}
}

func (r *flowRun) transferReceipt(t *rapid.T) {
	id, tr := pick(t, r.model.transfers, "transfer")
	q := rapid.Int64Range(1, 5).Draw(t, "quantity")
	got := r.submit(t, stockd.Command{Op: &stockd.TransferReceipt{TransferID: id, Quantity: q}})
	if q > tr.outstanding {
		expect(t, "transfer receipt", got, stockd.CodeQuantityExceeded)
		return
	}
	expect(t, "transfer receipt", got, "")
	r.model.add(tr.to, stockd.Counters{InTransit: -q, OnHand: q})
	tr.outstanding -= q
}

func (r *flowRun) transferCancel(t *rapid.T) {
	id, tr := pick(t, r.model.transfers, "transfer")
	got := r.submit(t, stockd.Command{Op: &stockd.TransferCancel{TransferID: id}})
	if !tr.cancelled && tr.outstanding == 0 {
		expect(t, "cancel of a received transfer", got, stockd.CodeUnprocessable)
		return
	}
	expect(t, "transfer cancel", got, "")
	if !tr.cancelled {
		r.model.add(tr.to, stockd.Counters{InTransit: -tr.outstanding})
		r.model.add(tr.from, stockd.Counters{OnHand: tr.outstanding})
		tr.outstanding, tr.cancelled = 0, true
	}
}

func (r *flowRun) order(t *rapid.T) {
	k := r.position(t)
	q := rapid.Int64Range(1, 10).Draw(t, "quantity")
	got := r.submit(t, stockd.Command{Op: &stockd.PurchaseOrder{
		Supplier: "Acme", ExpectedAt: time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC),
		Lines: []stockd.POLineRequest{{SKU: k.SKU, Location: k.Location, Quantity: q}},
	}})
	expect(t, "purchase order", got, "")
	var d stockd.PurchaseOrderDoc
	if err := json.Unmarshal(got.Object, &d); err != nil {
		t.Fatal(err)
	}
	r.model.add(k, stockd.Counters{Incoming: q})
	r.model.orders[d.ID] = &flowOrder{key: k, open: q}
}

func (r *flowRun) orderReceipt(t *rapid.T) {
	id, o := pick(t, r.model.orders, "order")
	q := rapid.Int64Range(1, 6).Draw(t, "quantity")
	got := r.submit(t, stockd.Command{Op: &stockd.PurchaseOrderReceipt{
		OrderID: id, Lines: []stockd.POLineRequest{{SKU: o.key.SKU, Location: o.key.Location, Quantity: q}},
	}})
	if o.cancelled || q > o.open {
		expect(t, "order receipt", got, stockd.CodeQuantityExceeded)
		return
	}
	expect(t, "order receipt", got, "")
	r.model.add(o.key, stockd.Counters{Incoming: -q, OnHand: q})
	o.open -= q
}

func (r *flowRun) orderCancel(t *rapid.T) {
	id, o := pick(t, r.model.orders, "order")
	got := r.submit(t, stockd.Command{Op: &stockd.PurchaseOrderCancel{OrderID: id}})
	if !o.cancelled && o.open == 0 {
		expect(t, "cancel of a received order", got, stockd.CodeUnprocessable)
		return
	}
	expect(t, "cancel", got, "")
	if !o.cancelled {
		r.model.add(o.key, stockd.Counters{Incoming: -o.open})
		o.cancelled = true
	}
}

// replay resends an answered command with its key: the first answer comes
// back and nothing changes.
func (r *flowRun) replay(t *rapid.T) {
	if len(r.history) == 0 {
		t.Skip("nothing sent yet")
	}
	old := rapid.SampledFrom(r.history).Draw(t, "request")
	res, err := r.h.Engine.Submit(context.Background(), old.cmd)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(res)
	if !res.Replayed || string(again) != string(old.answer) {
		t.Fatalf("replay of %s answered %s (replayed %v), first answer was %s", old.cmd.Kind(), again, res.Replayed, old.answer)
	}
}

// check compares the store with the model.
func (r *flowRun) check(t *rapid.T) {
	for _, sku := range r.skus() {
		ps, err := r.h.Store.PositionListBySKU(ctx, sku)
		if err != nil {
			t.Fatal(err)
		}
		got := map[stockd.PositionKey]stockd.Counters{}
		for _, p := range ps {
			got[p.PositionKey] = p.Counters
		}
		for _, loc := range flowPropertyLocations {
			k := stockd.PositionKey{SKU: sku, Location: loc, Pool: stockd.PoolDefault}
			if g, w := got[k], r.model.counters[k]; g != w {
				t.Fatalf("%s@%s: counters %+v, model %+v", sku, loc, g, w)
			}
		}
	}
	for id, want := range r.model.reservations {
		got, err := r.h.Store.ReservationGet(ctx, id)
		if err != nil || got.Status != want.status {
			t.Fatalf("reservation %s: %s (%v), model %s", id, got.Status, err, want.status)
		}
	}
}

// verify checks the books once a case ends: the whole store, every case
// so far, so not after each step.
func (r *flowRun) verify(t *rapid.T) {
	rep, err := audit.Verify(ctx, r.h.Store)
	if err != nil || !rep.Clean() {
		t.Fatalf("verify: %v %+v", err, rep.Differences)
	}
}

// testFlowProperty runs random sequences of every flow step against the
// model, with replays of earlier requests mixed in, on one store: each
// case names SKUs of its own.
func testFlowProperty(t *testing.T, h *Harness) {
	h.Location("pw1", 1)
	run := 0
	rapid.Check(t, func(rt *rapid.T) {
		run++
		r := &flowRun{h: h, prefix: fmt.Sprintf("p%d-", run), model: flowModel{
			counters:     map[stockd.PositionKey]stockd.Counters{},
			reservations: map[string]*flowReservation{},
			transfers:    map[string]*flowTransfer{},
			orders:       map[string]*flowOrder{},
		}}
		for _, sku := range r.skus() {
			r.submit(rt, stockd.Command{Op: &stockd.SKUCreate{SKU: stockd.SKU{ID: sku}}})
		}
		rt.Repeat(map[string]func(*rapid.T){
			"receive":          r.receive,
			"sell":             r.sell,
			"fulfil":           r.fulfil,
			"ship part":        r.ship,
			"give back":        r.giveBack,
			"quarantine":       r.quarantine,
			"transfer":         r.transfer,
			"transfer receipt": r.transferReceipt,
			"transfer cancel":  r.transferCancel,
			"order":            r.order,
			"order receipt":    r.orderReceipt,
			"order cancel":     r.orderCancel,
			"replay":           r.replay,
			"":                 r.check,
		})
		r.verify(rt)
	})
}
