package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// CreateSKUParams are the arguments of Client.CreateSKU. An empty
// IdempotencyKey is replaced by a random one.
type CreateSKUParams struct {
	IdempotencyKey string
	SKU            string
	Name           string
	Unit           string
	// Deduction is at_order (the default), at_payment or at_shipment.
	Deduction string
	// ApprovalThreshold of zero means the server's default.
	ApprovalThreshold int64
	// Bundle creates a bundle SKU (see CreateBundle).
	Bundle bool
}

// CreateSKU creates a SKU.
func (c *Client) CreateSKU(ctx context.Context, p CreateSKUParams) (SKU, error) {
	var out SKU
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/skus", key: keyOrRandom(p.IdempotencyKey),
		body: skuRequest{SKU: p.SKU, Name: p.Name, Unit: p.Unit, Deduction: p.Deduction, ApprovalThreshold: optional(p.ApprovalThreshold), Bundle: p.Bundle}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// GetSKU reads a SKU.
func (c *Client) GetSKU(ctx context.Context, sku string) (SKU, error) {
	var out SKU
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/skus/" + url.PathEscape(sku), out: &out})
	return out, err
}

// CreateLocationParams are the arguments of Client.CreateLocation.
type CreateLocationParams struct {
	IdempotencyKey string
	Location       string
	Name           string
	// Priority orders placement: lower is tried first.
	Priority int64
	// Inactive creates the location switched off for placement.
	Inactive bool
}

// CreateLocation creates a location.
func (c *Client) CreateLocation(ctx context.Context, p CreateLocationParams) (Location, error) {
	var out Location
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/locations", key: keyOrRandom(p.IdempotencyKey),
		body: locationRequest{Location: p.Location, Name: p.Name, Priority: &p.Priority, Active: inactiveFlag(p.Inactive)}, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// Locations lists every location.
func (c *Client) Locations(ctx context.Context) ([]Location, error) {
	var out LocationList
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/locations", out: &out})
	return out.Locations, err
}

// ReceiveParams are the arguments of Client.Receive. Location and Pool
// default to the server's ("default", "normal").
type ReceiveParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	Pool           string
	Quantity       int64
	Reference      string
}

// Receive adds Quantity to on_hand and returns the position after.
func (c *Client) Receive(ctx context.Context, p ReceiveParams) (Position, error) {
	var out Position
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/receipts", key: keyOrRandom(p.IdempotencyKey),
		body: receiptRequest{SKU: p.SKU, Location: p.Location, Pool: p.Pool, Quantity: &p.Quantity, Reference: p.Reference},
		out:  &out,
	})
	out.Replayed = replayed
	return out, err
}

// AdjustParams are the arguments of Client.Adjust: on_hand changes by
// Delta, or, when Set is true, becomes SetOnHand provided it still is
// ExpectedOnHand (else stale_quantity).
type AdjustParams struct {
	IdempotencyKey string
	SKU            string
	Location       string
	Pool           string
	Reason         string
	Delta          int64
	Set            bool
	SetOnHand      int64
	ExpectedOnHand int64
	Reference      string
}

// ErrPendingApproval is what a *PendingApprovalError unwraps to.
var ErrPendingApproval = errors.New("adjustment pending approval")

// PendingApprovalError is the error of Client.Adjust when the server
// accepted the adjustment (202) but holds it for a key other than the
// requester's to approve: nothing changed yet. An error rather than a
// result, so that a caller that knows nothing of approvals never takes
// the empty position for the stock after the change. It is no
// *stockd.Error (the server refused nothing), so test for it with
// errors.As or errors.Is before stockd.ErrorCode, which would call it
// internal. Retrying with the same idempotency key answers the same
// approval; a new key would ask for a second one.
type PendingApprovalError struct {
	Approval Approval
}

func (e *PendingApprovalError) Error() string {
	return fmt.Sprintf("adjustment of %s at %s/%s waits for approval %s", e.Approval.Adjustment.SKU,
		e.Approval.Adjustment.Location, e.Approval.Adjustment.Pool, e.Approval.ID)
}

func (e *PendingApprovalError) Unwrap() error { return ErrPendingApproval }

// adjustAnswer is the answer of POST /v1/adjustments: a position (200), or
// the pending approval (202). The client's calls see bodies, not statuses,
// so the approval is told by the field only it has.
type adjustAnswer struct {
	position Position
	approval *Approval
}

func (a *adjustAnswer) UnmarshalJSON(b []byte) error {
	var probe struct {
		Adjustment json.RawMessage `json:"adjustment"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return err
	}
	if probe.Adjustment != nil {
		a.approval = &Approval{}
		return json.Unmarshal(b, a.approval)
	}
	return json.Unmarshal(b, &a.position)
}

// Adjust corrects on_hand and returns the position after. An adjustment
// beyond the SKU's approval threshold changes nothing yet: Adjust then
// returns a *PendingApprovalError (errors.Is ErrPendingApproval) holding
// the approval to wait for.
func (c *Client) Adjust(ctx context.Context, p AdjustParams) (Position, error) {
	req := adjustmentRequest{SKU: p.SKU, Location: p.Location, Pool: p.Pool, Reason: p.Reason, Reference: p.Reference}
	if p.Set {
		req.SetOnHand, req.ExpectedOnHand = &p.SetOnHand, &p.ExpectedOnHand
	} else {
		req.Delta = &p.Delta
	}
	var out adjustAnswer
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/adjustments", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out,
	})
	if err != nil {
		return Position{}, err
	}
	if out.approval != nil {
		return Position{}, &PendingApprovalError{Approval: *out.approval}
	}
	out.position.Replayed = replayed
	return out.position, nil
}

// Stock reads every position of a SKU.
func (c *Client) Stock(ctx context.Context, sku string) (Stock, error) {
	var out Stock
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/stock/" + url.PathEscape(sku), out: &out})
	return out, err
}

// ReserveLine is one line of Client.Reserve; an empty Location lets the
// server pick the first location by priority that holds the whole line.
type ReserveLine struct {
	SKU      string
	Quantity int64
	Location string
	Pool     string
}

// ReserveParams are the arguments of Client.Reserve. A zero TTL means the
// server's default (15 minutes); a TTL is sent in whole seconds, rounded up.
type ReserveParams struct {
	IdempotencyKey string
	Lines          []ReserveLine
	TTL            time.Duration
	Commit         bool
	// Strategy is priority (the default), single_location or split.
	Strategy   string
	CustomerID string
}

// Reserve holds stock for every line or none.
func (c *Client) Reserve(ctx context.Context, p ReserveParams) (Reservation, error) {
	req := reservationRequest{
		Commit: p.Commit, Strategy: p.Strategy, CustomerID: p.CustomerID,
		Lines: make([]reservationLineRequest, 0, len(p.Lines)),
	}
	for _, l := range p.Lines {
		quantity := l.Quantity
		req.Lines = append(req.Lines, reservationLineRequest{SKU: l.SKU, Quantity: &quantity, Location: l.Location, Pool: l.Pool})
	}
	if p.TTL != 0 {
		seconds := int64(math.Ceil(p.TTL.Seconds()))
		req.TTLSeconds = &seconds
	}
	var out Reservation
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/reservations", key: keyOrRandom(p.IdempotencyKey), body: req, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// GetReservation reads a reservation by id.
func (c *Client) GetReservation(ctx context.Context, id string) (Reservation, error) {
	var out Reservation
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/reservations/" + url.PathEscape(id), out: &out})
	return out, err
}

// GetReservationByKey reads the reservation made with an idempotency key:
// how a caller whose Reserve timed out learns what happened.
func (c *Client) GetReservationByKey(ctx context.Context, key string) (Reservation, error) {
	var out Reservation
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/reservations?" + url.Values{"key": {key}}.Encode(), out: &out})
	return out, err
}

// ConfirmParams are the arguments of Client.Confirm.
type ConfirmParams struct {
	IdempotencyKey string
	ID             string
}

// Confirm moves a pending reservation to confirmed (reserved → committed).
func (c *Client) Confirm(ctx context.Context, p ConfirmParams) (Reservation, error) {
	return c.transition(ctx, p.ID, "confirm", p.IdempotencyKey, nil)
}

// ReleaseParams are the arguments of Client.Release. Reason is one of
// cancelled (the default), payment_failed, risk_rejected, other.
type ReleaseParams struct {
	IdempotencyKey string
	ID             string
	Reason         string
}

// Release moves a pending reservation to released (reserved → available).
func (c *Client) Release(ctx context.Context, p ReleaseParams) (Reservation, error) {
	var body any
	if p.Reason != "" {
		body = releaseRequest{Reason: p.Reason}
	}
	return c.transition(ctx, p.ID, "release", p.IdempotencyKey, body)
}

// FulfilParams are the arguments of Client.Fulfil.
type FulfilParams struct {
	IdempotencyKey string
	ID             string
}

// Fulfil moves a confirmed reservation to fulfilled (committed leaves
// on_hand: shipped).
func (c *Client) Fulfil(ctx context.Context, p FulfilParams) (Reservation, error) {
	return c.transition(ctx, p.ID, "fulfil", p.IdempotencyKey, nil)
}

func (c *Client) transition(ctx context.Context, id, verb, key string, body any) (Reservation, error) {
	var out Reservation
	replayed, err := c.do(ctx, call{
		method: http.MethodPost, path: "/v1/reservations/" + url.PathEscape(id) + "/" + verb,
		key: keyOrRandom(key), body: body, out: &out,
	})
	out.Replayed = replayed
	return out, err
}

// LedgerParams select a page of the ledger. Zero values mean every SKU,
// from the start, and the server's default page size.
type LedgerParams struct {
	SKU   string
	After int64
	Limit int
}

// Ledger reads one page of ledger entries; pass NextAfter as After for the
// next.
func (c *Client) Ledger(ctx context.Context, p LedgerParams) (LedgerPage, error) {
	q := pageQuery(p.After, p.Limit)
	if p.SKU != "" {
		q.Set("sku", p.SKU)
	}
	var out LedgerPage
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/ledger?" + q.Encode(), out: &out})
	return out, err
}

// EventsParams select a page of events.
type EventsParams struct {
	After int64
	Limit int
}

// Events reads one page of the outbox; pass NextAfter as After for the next.
func (c *Client) Events(ctx context.Context, p EventsParams) (EventPage, error) {
	var out EventPage
	_, err := c.do(ctx, call{method: http.MethodGet, path: "/v1/events?" + pageQuery(p.After, p.Limit).Encode(), out: &out})
	return out, err
}

func pageQuery(after int64, limit int) url.Values {
	q := url.Values{"after": {strconv.FormatInt(after, 10)}}
	if limit != 0 {
		q.Set("limit", strconv.Itoa(limit))
	}
	return q
}

// optional sends zero as absent.
func optional(v int64) *int64 {
	if v == 0 {
		return nil
	}
	return &v
}

// inactiveFlag sends active=false only when asked, leaving the server's
// default (active) otherwise.
func inactiveFlag(inactive bool) *bool {
	if !inactive {
		return nil
	}
	active := false
	return &active
}
