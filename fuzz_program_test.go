package stockd

import (
	"fmt"
	"slices"
	"time"
)

// fuzzProgram writes the input format FuzzBatchDecision reads, for seeds
// a reader can follow. Each method writes the bytes decodeRequest reads
// for one field, in its order.
type fuzzProgram struct{ b []byte }

func fuzzIndex[T comparable](list []T, v T) byte {
	i := slices.Index(list, v)
	if i < 0 {
		panic(fmt.Sprintf("fuzz seed: %v is not among %v", v, list))
	}
	return byte(i)
}

// newFuzzProgram starts a program of batches batches.
func newFuzzProgram(batches int) *fuzzProgram { return &fuzzProgram{b: []byte{byte(batches - 1)}} }

// batch starts a batch of commands commands after the clock moved by step.
func (p *fuzzProgram) batch(step time.Duration, commands int) *fuzzProgram {
	p.b = append(p.b, fuzzIndex(fuzzClockSteps, step), byte(commands-1))
	return p
}

// cmd starts a command of a new key, sent by actor.
func (p *fuzzProgram) cmd(kind CommandKind, actor string) *fuzzProgram {
	p.b = append(p.b, 0, fuzzIndex(fuzzActors, actor), 0, fuzzIndex(fuzzKinds, kind))
	return p
}

func (p *fuzzProgram) raw(b ...byte) *fuzzProgram { p.b = append(p.b, b...); return p }

func (p *fuzzProgram) of(list []string, v string) *fuzzProgram { return p.raw(fuzzIndex(list, v)) }

func (p *fuzzProgram) flag(v bool) *fuzzProgram {
	if v {
		return p.raw(1)
	}
	return p.raw(0)
}

// small is a quantity from 1 to 8.
func (p *fuzzProgram) small(q int64) *fuzzProgram { return p.raw(byte(q - 1)) }

func (p *fuzzProgram) text(s string) *fuzzProgram { return p.of(fuzzTexts, s) }

func (p *fuzzProgram) pos(sku, location, pool string) *fuzzProgram {
	return p.of(fuzzSKUs, sku).of(fuzzLocations, location).of(fuzzPools, pool)
}

// minutes is a time minutes from the batch's clock.
func (p *fuzzProgram) minutes(m int8) *fuzzProgram { return p.raw(0, byte(m)) }

// special is fuzzTimes[i].
func (p *fuzzProgram) special(i int) *fuzzProgram { return p.raw(byte(2 + 4*i)) }

// known names the i-th id of its kind in the store; next the i-th id
// NewID gives from the start of the batch (0, 1 or 2).
func (p *fuzzProgram) known(i int) *fuzzProgram { return p.raw(byte(4 * i)) }
func (p *fuzzProgram) next(i int) *fuzzProgram  { return p.raw(byte(3 + 8*i)) }

func (p *fuzzProgram) bytes() []byte { return p.b }

// fuzzSeeds are typical programs, one or more for every command kind.
func fuzzSeeds() [][]byte {
	var seeds [][]byte
	add := func(p *fuzzProgram) { seeds = append(seeds, p.bytes()) }
	none := ""

	// Orders: receive, reserve over two lines, confirm, fulfil, return
	// into quarantine, release it; then a commit and a refund.
	add(newFuzzProgram(2).batch(0, 6).
		cmd(KindReceive, none).pos("a", none, none).small(5).text("ref").
		cmd(KindReserve, none).raw(0).flag(false).of(fuzzStrategies, none).of(fuzzCustomers, none).of(fuzzOrders, none).raw(2).
		pos("a", none, none).small(3).pos("b", none, none).small(1).flag(false).
		cmd(KindConfirm, none).next(0).
		cmd(KindFulfil, none).next(0).flag(false).
		cmd(KindReturn, none).next(0).flag(false).text("ref").raw(1).pos("a", none, none).small(2).
		cmd(KindQuarantineRelease, none).pos("a", none, none).small(1).text(none).
		batch(time.Minute, 3).
		cmd(KindReserve, "bob").raw(0).flag(true).of(fuzzStrategies, StrategySplit).of(fuzzCustomers, none).of(fuzzOrders, none).raw(1).
		pos("a", none, none).small(8).flag(false).
		cmd(KindReturn, "bob").next(0).flag(false).text(none).raw(1).pos("a", none, none).small(4).
		cmd(KindRelease, none).known(0).of(fuzzRelease, ReleaseCancelled))

	// Partial fulfilment: a committed order of a and b ships 2 of a in
	// its own batch, then 1 more of a and b's 1 from the stored lines; the
	// last unit of a is refunded, which fulfils it; one shipped unit
	// comes back.
	add(newFuzzProgram(3).batch(0, 3).
		cmd(KindReceive, none).pos("a", none, none).small(5).text(none).
		cmd(KindReceive, none).pos("b", none, none).small(2).text(none).
		cmd(KindReserve, none).raw(0).flag(true).of(fuzzStrategies, none).of(fuzzCustomers, none).of(fuzzOrders, none).raw(2).
		pos("a", none, none).small(4).pos("b", none, none).small(1).flag(false).
		batch(time.Minute, 1).
		cmd(KindFulfil, none).known(0).flag(true).flag(true).small(2).flag(false).flag(false).
		batch(time.Minute, 3).
		cmd(KindFulfil, none).known(0).flag(true).flag(true).small(1).flag(true).flag(true).small(1).flag(false).
		cmd(KindReturn, none).known(0).flag(false).text(none).flag(true).flag(true).small(1).flag(false).flag(false).
		cmd(KindReturn, none).known(0).flag(true).text(none).flag(true).flag(true).small(1).flag(false).flag(false))

	// Stock: adjustments by delta and by count, a move into quarantine
	// and a scrap, a shipment of a SKU deducting at shipment.
	add(newFuzzProgram(1).batch(0, 5).
		cmd(KindAdjust, none).pos("a", none, none).of(fuzzReasons, ReasonFound).text(none).flag(false).small(3).flag(false).
		cmd(KindAdjust, none).pos("a", "w1", none).of(fuzzReasons, ReasonCycleCount).text(none).flag(true).small(8).small(1).flag(true).
		cmd(KindMove, none).pos("a", none, none).small(2).of(fuzzStates, StateAvailable).of(fuzzStates, StateQuarantined).text(none).
		cmd(KindQuarantineScrap, none).pos("a", none, none).small(1).of(fuzzReasons, ReasonDamage).text(none).
		cmd(KindShipment, none).text("ref").raw(0).pos("s", none, none).small(4))

	// Campaigns: a window around now, an allocation into it, a
	// reservation from it, the close; then the release of the hold.
	add(newFuzzProgram(2).batch(0, 5).
		cmd(KindPoolCreate, none).of(fuzzPools, "sale").raw(1 /* campaign */).text(none).flag(false).raw(1).minutes(-60).raw(1).minutes(120).
		cmd(KindPoolCreate, none).of(fuzzPools, "ch").raw(0 /* channel */).text("é").flag(true).raw(0).raw(0).
		cmd(KindAllocate, none).of(fuzzSKUs, "a").of(fuzzLocations, none).of(fuzzPools, none).of(fuzzPools, "sale").small(6).text(none).
		cmd(KindReserve, none).raw(0).flag(false).of(fuzzStrategies, none).of(fuzzCustomers, none).of(fuzzOrders, none).raw(1).pos("a", none, "sale").small(2).
		cmd(KindCampaignClose, none).of(fuzzPools, "sale").
		batch(time.Minute, 1).
		cmd(KindRelease, none).known(0).of(fuzzRelease, none))

	// Purchase orders and transfers, received in part and cancelled.
	add(newFuzzProgram(2).batch(0, 4).
		cmd(KindPurchaseOrder, none).of(fuzzOrderIDs, "po1").flag(false).minutes(90).text(none).raw(1).
		raw(fuzzIndex(fuzzSKUs, "a"), fuzzIndex(fuzzLocations, "w1"), 4).raw(fuzzIndex(fuzzSKUs, "b"), 0, 2).
		cmd(KindTransfer, none).of(fuzzSKUs, "a").of(fuzzLocations, LocationDefault).of(fuzzLocations, "w2").of(fuzzPools, none).small(4).text(none).
		cmd(KindTransferReceipt, none).next(0).small(1).text(none).
		cmd(KindPurchaseOrderCancel, none).known(1 /* po2, never created */).
		batch(time.Hour, 2).
		cmd(KindPurchaseOrderReceipt, none).known(0).text(none).flag(true).flag(true).small(2).flag(false).
		cmd(KindTransferCancel, none).known(0))

	// Limits and bundles: a limit on a SKU, a customer's orders against
	// it, a bundle defined and reserved.
	add(newFuzzProgram(2).batch(0, 4).
		cmd(KindLimitSet, none).raw(0).small(3).raw(4).of(fuzzSKUs, "a").
		cmd(KindReserve, none).raw(0).flag(false).of(fuzzStrategies, none).of(fuzzCustomers, "c1").of(fuzzOrders, none).raw(1).pos("a", none, none).small(2).
		cmd(KindReserve, none).raw(0).flag(false).of(fuzzStrategies, none).of(fuzzCustomers, "c1").of(fuzzOrders, none).raw(1).pos("a", none, none).small(2).
		cmd(KindBundleCreate, none).of(fuzzSKUs, "kit").raw(2).of(fuzzSKUs, "a").raw(1).of(fuzzSKUs, "b").raw(0).
		batch(ReservationTTLDefault, 2).
		cmd(KindReserve, none).raw(0).flag(false).of(fuzzStrategies, StrategySingleLocation).of(fuzzCustomers, "c2").of(fuzzOrders, none).raw(1).pos("kit", none, none).small(2).
		cmd(KindExpire, none).known(0).flag(true))

	// Settings and approvals: a new SKU and location, their settings, an
	// adjustment beyond the threshold approved by another actor.
	add(newFuzzProgram(2).batch(0, 5).
		cmd(KindSKUCreate, none).of(fuzzSKUs, "d").text("ref").raw(0).of(fuzzDeductions, none).raw(0).flag(false).
		cmd(KindLocationCreate, none).of(fuzzLocations, "w3").text(none).raw(3).flag(false).
		cmd(KindLocationUpdate, none).of(fuzzLocations, "w2").flag(false).flag(true).raw(0).flag(true).flag(false).
		cmd(KindSKUUpdate, none).of(fuzzSKUs, "b").flag(true).text("é").flag(false).flag(true).raw(2).flag(false).
		cmd(KindAdjust, "alice").pos("b", none, none).of(fuzzReasons, ReasonFound).text(none).flag(false).small(8).flag(false).
		batch(time.Minute, 2).
		cmd(KindApprove, "alice").known(0).
		cmd(KindApprove, "bob").known(0))
	// Business numbers: one order reserved twice in a batch, released,
	// then reserved again in the next; one delivery note received twice.
	add(newFuzzProgram(2).batch(0, 5).
		cmd(KindReserve, none).raw(0).flag(false).of(fuzzStrategies, none).of(fuzzCustomers, none).of(fuzzOrders, "o1").raw(1).pos("a", none, none).small(1).
		cmd(KindReserve, none).raw(0).flag(false).of(fuzzStrategies, none).of(fuzzCustomers, none).of(fuzzOrders, "o1").raw(1).pos("a", none, none).small(2).
		cmd(KindRelease, none).next(0).of(fuzzRelease, ReleaseCancelled).
		cmd(KindReceive, none).pos("a", none, none).small(5).text("ref").
		cmd(KindReceive, none).pos("a", none, none).small(5).text("ref").
		batch(time.Minute, 2).
		cmd(KindReserve, none).raw(0).flag(true).of(fuzzStrategies, none).of(fuzzCustomers, none).of(fuzzOrders, "o1").raw(1).pos("a", none, none).small(1).
		cmd(KindAdjust, none).pos("a", none, none).of(fuzzReasons, ReasonDamage).text("ref").flag(false).small(1).flag(false))
	return seeds
}
