package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/stockd/stockd"
)

// submit is Do for goroutines: an explicit key, and errors returned, not
// fatal.
func (h *Harness) submit(key, actor string, cmd stockd.Command) (stockd.Result, error) {
	cmd.IdempotencyKey, cmd.RequestHash, cmd.Actor = key, key, actor
	return h.Engine.Submit(context.Background(), cmd)
}

// testCampaignCloseRace: a campaign closes while reservations land on its
// pool. Every unit stays accounted for: on_hand of normal and campaign is
// conserved, the close returned exactly what nothing held, and once the
// holds are released the campaign is empty.
func testCampaignCloseRace(t *testing.T, h *Harness) {
	const stock, allocated, buyers = 200, 100, 40
	h.SKU("a")
	h.Receive("a", "default", stock)
	h.campaign("sale")
	h.MustDo(allocateCommand("a", "", "", "sale", allocated))

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		ids      []string
		failures []error
	)
	start := make(chan struct{})
	for i := range buyers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			res, err := h.submit(fmt.Sprintf("buy-%d", i), "", stockd.Command{Op: &stockd.Reserve{
				Lines: []stockd.LineRequest{{SKU: "a", Quantity: 2, Location: "default", Pool: "sale"}},
			}})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err != nil:
				failures = append(failures, err)
			case res.Err == nil:
				ids = append(ids, res.Reservation.ID)
			case res.Err.Code != stockd.CodeInsufficientStock && res.Err.Code != stockd.CodeCampaignNotActive:
				failures = append(failures, res.Err)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-start
		res, err := h.submit("close", "", stockd.Command{Op: &stockd.CampaignClose{Pool: "sale"}})
		mu.Lock()
		defer mu.Unlock()
		if err != nil || res.Err != nil {
			failures = append(failures, fmt.Errorf("close: %v %v", err, res.Err))
		}
	}()
	close(start)
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("failures: %v", failures)
	}
	held := int64(2 * len(ids))
	t.Logf("%d of %d reservations landed before the close", len(ids), buyers)
	sale, normal := h.poolCounters("a", "default", "sale"), h.poolCounters("a", "default", stockd.PoolDefault)
	if sale.OnHand+normal.OnHand != stock {
		t.Fatalf("on_hand sale %d + normal %d, want %d", sale.OnHand, normal.OnHand, stock)
	}
	if sale.Reserved != held || sale.Available() != 0 {
		t.Fatalf("sale = %+v, want %d reserved and nothing available after the close", sale, held)
	}
	for i, id := range ids {
		if _, err := h.submit(fmt.Sprintf("release-%d", i), "", stockd.Command{Op: &stockd.Transition{Action: stockd.KindRelease, ReservationID: id}}); err != nil {
			t.Fatal(err)
		}
	}
	if sale := h.poolCounters("a", "default", "sale"); sale != (stockd.Counters{}) {
		t.Fatalf("sale after releasing every hold = %+v, want empty", sale)
	}
	if normal := h.Counters("a", "default"); normal.OnHand != stock || normal.Available() != stock {
		t.Fatalf("normal = %+v, want all %d back", normal, stock)
	}
	h.Verify()
}

// testSettings: locations and SKUs change only the fields given.
func testSettings(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Location("north", 5)
	inactive, priority := false, 2
	res := h.MustDo(stockd.Command{Op: &stockd.LocationUpdate{ID: "north", Active: &inactive, Priority: &priority}})
	if l := res.Location; l == nil || !l.Inactive || l.Priority != 2 {
		t.Fatalf("updated location = %+v", res.Location)
	}
	locations, err := h.Store.LocationList(ctx)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range locations {
		if l.ID == "north" {
			found = l.Inactive && l.Priority == 2
		}
	}
	if !found {
		t.Fatalf("stored locations = %+v, want north inactive at priority 2", locations)
	}
	threshold, deduction := int64(5), stockd.DeductionAtPayment
	h.MustDo(stockd.Command{Op: &stockd.SKUUpdate{ID: "a", ApprovalThreshold: &threshold, Deduction: &deduction}})
	sku, err := h.Store.SKUGet(ctx, "a")
	if err != nil || sku.Threshold() != 5 || sku.Deduction != stockd.DeductionAtPayment || sku.Name != "a" {
		t.Fatalf("stored sku = %+v, %v", sku, err)
	}
	WantCode(t, h.Do(stockd.Command{Op: &stockd.SKUUpdate{ID: "zz", ApprovalThreshold: &threshold}}), stockd.CodeUnknownSKU)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.LocationUpdate{ID: "zz", Priority: &priority}}), stockd.CodeUnknownLocation)
	WantCode(t, h.Do(stockd.Command{Op: &stockd.SKUUpdate{ID: "a"}}), stockd.CodeUnprocessable)
	// The new threshold applies to the next adjustment.
	h.Receive("a", "default", 10)
	adj := h.MustDo(stockd.Command{Op: &stockd.Adjust{Position: stockd.PositionKey{SKU: "a"}, Reason: stockd.ReasonFound, Delta: 6}})
	if !adj.Pending {
		t.Fatalf("adjustment of 6 over a threshold of 5 answered %+v, want pending", adj)
	}
}

func adjustCommand(sku string, delta int64) stockd.Command {
	return stockd.Command{Op: &stockd.Adjust{Position: stockd.PositionKey{SKU: sku}, Reason: stockd.ReasonCorrection, Delta: delta}}
}

func decision(id string, reject bool) stockd.Command {
	d := &stockd.ApprovalDecision{ID: id, Reject: reject}
	return stockd.Command{Op: d}
}

// requestApproval asks, as requester, for an adjustment of sku by delta
// that must wait for approval, and returns the approval.
func (h *Harness) requestApproval(requester, sku string, delta int64) stockd.Approval {
	h.T.Helper()
	cmd := adjustCommand(sku, delta)
	cmd.Actor = requester
	res := h.MustDo(cmd)
	if !res.Pending || res.Position != nil {
		h.T.Fatalf("adjustment by %d answered %+v, want pending", delta, res)
	}
	return object[stockd.Approval](h.T, res)
}

// testApproval: above the threshold nothing changes until another key
// approves; the entry names requester and approver; a repeat changes
// nothing.
func testApproval(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	// At the threshold: applied at once.
	h.MustDo(adjustCommand("a", stockd.ApprovalThresholdDefault))
	ap := h.requestApproval("clerk", "a", 150)
	if ap.Status != stockd.ApprovalPending || ap.RequestedBy != "clerk" || ap.OnHandChange != 150 || !ap.ExpiresAt.Equal(h.Clock.Now().Add(stockd.ApprovalTTL)) {
		t.Fatalf("approval = %+v", ap)
	}
	if c := h.Counters("a", "default"); c.OnHand != 110 {
		t.Fatalf("on_hand %d before approval, want 110", c.OnHand)
	}
	self := decision(ap.ID, false)
	self.Actor = "clerk"
	WantCode(t, h.Do(self), stockd.CodeSelfApproval)

	approve := decision(ap.ID, false)
	approve.Actor = "boss"
	got := object[stockd.Approval](t, h.MustDo(approve))
	if got.Status != stockd.ApprovalApproved || got.DecidedBy != "boss" || got.DecidedAt == nil {
		t.Fatalf("approved = %+v", got)
	}
	if c := h.Counters("a", "default"); c.OnHand != 260 {
		t.Fatalf("on_hand %d after approval, want 260", c.OnHand)
	}
	again := object[stockd.Approval](t, h.MustDo(approve))
	if again.Status != stockd.ApprovalApproved || h.Counters("a", "default").OnHand != 260 {
		t.Fatalf("second approval: %+v, on_hand %d", again, h.Counters("a", "default").OnHand)
	}
	var entry *stockd.LedgerEntry
	for _, e := range h.poolLedger("a", stockd.BusinessAdjustment) {
		if e.BusinessID == ap.ID {
			if entry != nil {
				t.Fatal("two entries for one approval")
			}
			entry = &e
		}
	}
	if entry == nil || entry.Actor != "clerk" || entry.Approver != "boss" || entry.Reason != stockd.ReasonCorrection || entry.Delta.OnHand != 150 {
		t.Fatalf("ledger entry = %+v", entry)
	}
	reject := decision(ap.ID, true)
	reject.Actor = "boss"
	WantCode(t, h.Do(reject), stockd.CodeInvalidTransition)
	h.Verify()
}

// testApprovalRefusals: an approval the stock no longer allows stays
// pending; rejection is recorded; expiry is recorded and refused.
func testApprovalRefusals(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 300)
	ap := h.requestApproval("clerk", "a", -250)
	h.Reserve(line("a", 100))
	approve := decision(ap.ID, false)
	approve.Actor = "boss"
	WantCode(t, h.Do(approve), stockd.CodeInsufficientStock)
	h.poolApprovalIs(ap.ID, stockd.ApprovalPending)

	reject := decision(ap.ID, true)
	reject.Actor = "boss"
	if got := object[stockd.Approval](t, h.MustDo(reject)); got.Status != stockd.ApprovalRejected || got.DecidedBy != "boss" {
		t.Fatalf("rejected = %+v", got)
	}
	WantCode(t, h.Do(approve), stockd.CodeInvalidTransition)

	late := h.requestApproval("clerk", "a", 500)
	h.Clock.Advance(stockd.ApprovalTTL)
	approveLate := decision(late.ID, false)
	approveLate.Actor = "boss"
	WantCode(t, h.Do(approveLate), stockd.CodeInvalidTransition)
	h.poolApprovalIs(late.ID, stockd.ApprovalExpired)
	WantCode(t, h.Do(decision("nope", false)), stockd.CodeNotFound)
	if c := h.Counters("a", "default"); c.OnHand != 300 {
		t.Fatalf("on_hand %d, want 300: nothing was approved", c.OnHand)
	}
	h.Verify()
}

func (h *Harness) poolApprovalIs(id, status string) {
	h.T.Helper()
	d, err := h.Store.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocApproval, ID: id})
	if err != nil {
		h.T.Fatal(err)
	}
	var ap stockd.Approval
	if err := json.Unmarshal(d.Body, &ap); err != nil || ap.Status != status {
		h.T.Fatalf("approval %s = %s (%v), want %s", id, d.Body, err, status)
	}
}

// testApprovalRace: two approvers at once apply the adjustment once.
func testApprovalRace(t *testing.T, h *Harness) {
	h.SKU("a")
	h.Receive("a", "default", 10)
	ap := h.requestApproval("clerk", "a", 500)
	results := h.raceCommands(2, func(i int) stockd.Command {
		c := decision(ap.ID, false)
		c.Actor = fmt.Sprintf("boss-%d", i)
		return c
	})
	if ok := countPassed(t, results); ok != 2 {
		t.Fatalf("%d approvals answered, want both (the second one the approved approval)", ok)
	}
	if c := h.Counters("a", "default"); c.OnHand != 510 {
		t.Fatalf("on_hand %d, want 510: applied once", c.OnHand)
	}
	if n := len(h.poolLedger("a", stockd.BusinessAdjustment)); n != 1 {
		t.Fatalf("%d adjustment entries, want 1", n)
	}
	h.Verify()
}
