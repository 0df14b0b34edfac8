// Command walkthrough runs the README's walk-through through the Go client
// that oapi-codegen generates from the served API document, against a
// running stockd, and checks each answer the README shows. It proves the
// generated client can do what an integrator does first: if the document
// drifts from what generators read well, this stops compiling or failing.
//
//	go run ./walkthrough http://127.0.0.1:8080
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/stockd/stockd/clients/go/stockdclient"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: walkthrough SERVER_URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "walkthrough:", err)
		os.Exit(1)
	}
	fmt.Println("walkthrough: every step answered as the README says")
}

// response is what every generated answer offers.
type response interface {
	StatusCode() int
}

// call is a generated call's two results, to be checked.
type call[R response] struct {
	r   R
	err error
}

func answered[R response](r R, err error) call[R] { return call[R]{r, err} }

// want fails unless the call succeeded with status want.
func (c call[R]) want(step string, want int) (R, error) {
	if c.err != nil {
		return c.r, fmt.Errorf("%s: %w", step, c.err)
	}
	if c.r.StatusCode() != want {
		return c.r, fmt.Errorf("%s: status %d, want %d", step, c.r.StatusCode(), want)
	}
	return c.r, nil
}

func ptr[T any](v T) *T { return &v }

func run(ctx context.Context, server string) error {
	c, err := stockdclient.NewClientWithResponses(server)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	if err := stock(ctx, c); err != nil {
		return err
	}
	return order(ctx, c)
}

// stock creates the location, SKUs, receipts, campaign pool and bundle.
func stock(ctx context.Context, c *stockdclient.ClientWithResponses) error {
	if _, err := answered(c.LocationCreateWithResponse(ctx, &stockdclient.LocationCreateParams{IdempotencyKey: "loc-east"},
		stockdclient.LocationCreateRequest{Location: "east", Name: ptr("East warehouse"), Priority: ptr(int32(1))})).want("location", http.StatusCreated); err != nil {
		return err
	}
	for _, sku := range []stockdclient.SKUCreateRequest{
		{Sku: "tee-M", Name: ptr("T-shirt M")},
		{Sku: "mug", Name: ptr("Mug")},
		{Sku: "gift-set", Name: ptr("Tee and mug"), Bundle: ptr(true)},
	} {
		if _, err := answered(c.SkuCreateWithResponse(ctx, &stockdclient.SkuCreateParams{IdempotencyKey: "sku-" + sku.Sku}, sku)).want("sku "+sku.Sku, http.StatusCreated); err != nil {
			return err
		}
	}
	for sku, quantity := range map[string]int64{"tee-M": 50, "mug": 30} {
		r, err := answered(c.ReceiptCreateWithResponse(ctx, &stockdclient.ReceiptCreateParams{IdempotencyKey: "rcv-" + sku},
			stockdclient.ReceiptRequest{Sku: sku, Location: ptr("east"), Quantity: quantity, Reference: ptr("PO-17")})).want("receipt "+sku, http.StatusOK)
		if err != nil {
			return err
		}
		if r.JSON200.OnHand != quantity {
			return fmt.Errorf("receipt %s: on_hand %d, want %d", sku, r.JSON200.OnHand, quantity)
		}
	}
	now := time.Now().UTC()
	if _, err := answered(c.PoolCreateWithResponse(ctx, &stockdclient.PoolCreateParams{IdempotencyKey: "pool-bf"},
		stockdclient.PoolCreateRequest{Pool: "black-friday", Kind: "campaign", StartsAt: ptr(now.Add(-time.Hour)), EndsAt: ptr(now.Add(7 * 24 * time.Hour))})).want("pool", http.StatusCreated); err != nil {
		return err
	}
	alloc, err := answered(c.AllocationCreateWithResponse(ctx, &stockdclient.AllocationCreateParams{IdempotencyKey: "alloc-bf-tee"},
		stockdclient.AllocationRequest{Sku: "tee-M", Location: ptr("east"), ToPool: "black-friday", Quantity: 20})).want("allocation", http.StatusOK)
	if err != nil {
		return err
	}
	if alloc.JSON200.From.OnHand != 30 || alloc.JSON200.To.OnHand != 20 {
		return fmt.Errorf("allocation: from %d to %d, want 30 and 20", alloc.JSON200.From.OnHand, alloc.JSON200.To.OnHand)
	}
	if _, err := answered(c.BundleCreateWithResponse(ctx, &stockdclient.BundleCreateParams{IdempotencyKey: "bundle-gift"},
		stockdclient.BundleCreateRequest{Bundle: "gift-set", Components: []stockdclient.BundleComponent{{Sku: "tee-M", Quantity: 1}, {Sku: "mug", Quantity: 1}}})).want("bundle", http.StatusCreated); err != nil {
		return err
	}
	gift, err := answered(c.StockGetWithResponse(ctx, "gift-set", nil)).want("bundle stock", http.StatusOK)
	if err != nil {
		return err
	}
	if gift.JSON200.Bundle == nil || gift.JSON200.Bundle.Available != 30 {
		return fmt.Errorf("bundle stock: %+v, want 30 available", gift.JSON200.Bundle)
	}
	return nil
}

// order reserves, replays, pays, ships, returns, and closes the campaign.
func order(ctx context.Context, c *stockdclient.ClientWithResponses) error {
	request := stockdclient.ReservationRequest{
		Lines:      []stockdclient.ReservationLineRequest{{Sku: "gift-set", Quantity: 2}, {Sku: "tee-M", Quantity: 1, Pool: ptr("black-friday")}},
		CustomerId: ptr("c-42"),
		TtlSeconds: ptr(int64(900)),
	}
	key := &stockdclient.ReservationCreateParams{IdempotencyKey: "order-1001"}
	reserved, err := answered(c.ReservationCreateWithResponse(ctx, key, request)).want("reserve", http.StatusCreated)
	if err != nil {
		return err
	}
	id := reserved.JSON201.Id
	replay, err := answered(c.ReservationCreateWithResponse(ctx, key, request)).want("replay", http.StatusCreated)
	if err != nil {
		return err
	}
	if replay.HTTPResponse.Header.Get("Idempotent-Replayed") != "true" || replay.JSON201.Id != id {
		return fmt.Errorf("replay: header %q, id %s; want true and %s", replay.HTTPResponse.Header.Get("Idempotent-Replayed"), replay.JSON201.Id, id)
	}
	outcome, err := answered(c.RequestGetWithResponse(ctx, "order-1001")).want("request status", http.StatusOK)
	if err != nil {
		return err
	}
	if outcome.JSON200.Outcome != "applied" || outcome.JSON200.Status != http.StatusCreated {
		return fmt.Errorf("request status: %s %d, want applied 201", outcome.JSON200.Outcome, outcome.JSON200.Status)
	}
	confirmed, err := answered(c.ReservationConfirmWithResponse(ctx, id, &stockdclient.ReservationConfirmParams{IdempotencyKey: "pay-1001"}, stockdclient.ConfirmRequest{})).want("confirm", http.StatusOK)
	if err != nil {
		return err
	}
	fulfilled, err := answered(c.ReservationFulfilWithResponse(ctx, id, &stockdclient.ReservationFulfilParams{IdempotencyKey: "ship-1001"}, stockdclient.FulfilRequest{})).want("fulfil", http.StatusOK)
	if err != nil {
		return err
	}
	if confirmed.JSON200.Status != "confirmed" || fulfilled.JSON200.Status != "fulfilled" {
		return fmt.Errorf("transitions: %s then %s, want confirmed then fulfilled", confirmed.JSON200.Status, fulfilled.JSON200.Status)
	}
	if _, err := answered(c.ReturnCreateWithResponse(ctx, &stockdclient.ReturnCreateParams{IdempotencyKey: "return-1001-1"},
		stockdclient.ReturnRequest{ReservationId: id, Lines: []stockdclient.ReturnLineRequest{{Sku: "mug", Quantity: 1}}, Reference: ptr("RMA-5")})).want("return", http.StatusCreated); err != nil {
		return err
	}
	released, err := answered(c.QuarantineReleaseWithResponse(ctx, &stockdclient.QuarantineReleaseParams{IdempotencyKey: "inspect-rma-5"},
		stockdclient.QuarantineReleaseRequest{Sku: "mug", Location: ptr("east"), Quantity: 1})).want("quarantine release", http.StatusOK)
	if err != nil {
		return err
	}
	if released.JSON200.Quarantined != 0 {
		return fmt.Errorf("quarantine release: %d still quarantined", released.JSON200.Quarantined)
	}
	closed, err := answered(c.CampaignCloseWithResponse(ctx, "black-friday", &stockdclient.CampaignCloseParams{IdempotencyKey: "close-bf"}, stockdclient.EmptyRequest{})).want("campaign close", http.StatusOK)
	if err != nil {
		return err
	}
	if closed.JSON200.ClosedAt == nil {
		return fmt.Errorf("campaign close: no closed_at")
	}
	ledger, err := answered(c.LedgerListWithResponse(ctx, &stockdclient.LedgerListParams{Sku: ptr("tee-M")})).want("ledger", http.StatusOK)
	if err != nil {
		return err
	}
	if len(ledger.JSON200.Entries) == 0 {
		return fmt.Errorf("ledger: no entries for tee-M")
	}
	return nil
}
