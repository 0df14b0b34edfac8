package httpapi

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Faults a test asks for with the X-Test-Fault header; the harness moves
// the header into the request's context, where faultySubmitter and
// faultyStore find it.
const (
	headerTestFault = "X-Test-Fault"

	faultInternal   = "internal"   // the engine or the store fails
	faultCancelled  = "cancelled"  // the engine or the store sees its context end
	faultOverloaded = "overloaded" // the engine's queue is full
	faultKeysFull   = "keys_full"  // the store holds stockd.APIKeysMax keys
	faultTimeout    = "timeout"    // the engine or the store passes the deadline
	faultDown       = "down"       // the database is unreachable
	faultHalted     = "halted"     // the engine halted on a broken invariant
	faultRefused    = "refused"    // the books refuse each command, as after a request that won a race

	// injectedDetail must never reach a caller.
	injectedDetail = "injected: disk on fire"
)

type faultContextKey struct{}

func faultOf(ctx context.Context) string {
	f, _ := ctx.Value(faultContextKey{}).(string)
	return f
}

// withFaults moves X-Test-Fault into the context.
func withFaults(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f := r.Header.Get(headerTestFault); f != "" {
			r = r.WithContext(context.WithValue(r.Context(), faultContextKey{}, f))
		}
		next.ServeHTTP(w, r)
	})
}

func injected(ctx context.Context) error {
	switch faultOf(ctx) {
	case faultInternal:
		return errors.New(injectedDetail)
	case faultCancelled:
		return context.Canceled
	case faultTimeout:
		return fmt.Errorf("injected: %w", context.DeadlineExceeded)
	case faultDown:
		return fmt.Errorf("injected: dial tcp 10.0.0.7:5432: %w", store.ErrUnavailable)
	case faultHalted:
		return stockd.ErrHalted
	}
	return nil
}

// faultySubmitter passes commands to the engine unless a fault is asked for.
type faultySubmitter struct{ next Submitter }

func (f faultySubmitter) Submit(ctx context.Context, cmd stockd.Command) (stockd.Result, error) {
	switch faultOf(ctx) {
	case faultOverloaded:
		return stockd.Result{Err: stockd.Errorf(stockd.CodeOverloaded, "too many requests queued, retry later")}, nil
	case faultRefused:
		return stockd.Result{Err: stockd.Errorf(stockd.CodeStaleQuantity, "the books changed since this was decided")}, nil
	}
	if err := injected(ctx); err != nil {
		return stockd.Result{}, err
	}
	return f.next.Submit(ctx, cmd)
}

// faultyStore fails the reads the API makes when a fault is asked for.
type faultyStore struct{ store.Store }

func (f faultyStore) SKUGet(ctx context.Context, id string) (stockd.SKU, error) {
	if err := injected(ctx); err != nil {
		return stockd.SKU{}, err
	}
	return f.Store.SKUGet(ctx, id)
}

func (f faultyStore) SKUList(ctx context.Context, after string, limit int) ([]stockd.SKU, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.SKUList(ctx, after, limit)
}

func (f faultyStore) LocationList(ctx context.Context) ([]stockd.Location, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.LocationList(ctx)
}

func (f faultyStore) PositionListBySKU(ctx context.Context, sku string) ([]stockd.Position, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.PositionListBySKU(ctx, sku)
}

func (f faultyStore) ReservationGet(ctx context.Context, id string) (stockd.Reservation, error) {
	if err := injected(ctx); err != nil {
		return stockd.Reservation{}, err
	}
	return f.Store.ReservationGet(ctx, id)
}

func (f faultyStore) ReservationGetByKey(ctx context.Context, key string) (stockd.Reservation, error) {
	if err := injected(ctx); err != nil {
		return stockd.Reservation{}, err
	}
	return f.Store.ReservationGetByKey(ctx, key)
}

func (f faultyStore) IdempotencyGet(ctx context.Context, keys []string) ([]stockd.IdempotencyRecord, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.IdempotencyGet(ctx, keys)
}

func (f faultyStore) LedgerList(ctx context.Context, p store.LedgerListParams) ([]stockd.LedgerEntry, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.LedgerList(ctx, p)
}

func (f faultyStore) DocumentGet(ctx context.Context, key stockd.DocKey) (stockd.Document, error) {
	if err := injected(ctx); err != nil {
		return stockd.Document{}, err
	}
	return f.Store.DocumentGet(ctx, key)
}

func (f faultyStore) DocumentList(ctx context.Context, p store.DocumentListParams) ([]stockd.Document, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.DocumentList(ctx, p)
}

// KeyCount answers no keys when no store is behind, so that the tests that
// need no database run the server open, as before keys existed.
func (f faultyStore) KeyCount(ctx context.Context) (int, error) {
	if f.Store == nil {
		return 0, nil
	}
	return f.Store.KeyCount(ctx)
}

// KeyCreate fails when a fault is asked for, and answers that the keys are
// full for faultKeysFull.
func (f faultyStore) KeyCreate(ctx context.Context, p store.KeyCreateParams) error {
	if faultOf(ctx) == faultKeysFull {
		return fmt.Errorf("injected: %w", stockd.ErrLimitReached)
	}
	if err := injected(ctx); err != nil {
		return err
	}
	return f.Store.KeyCreate(ctx, p)
}

func (f faultyStore) KeyList(ctx context.Context) ([]stockd.APIKey, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.KeyList(ctx)
}

func (f faultyStore) KeyRevoke(ctx context.Context, p store.KeyRevokeParams) (stockd.APIKey, error) {
	if err := injected(ctx); err != nil {
		return stockd.APIKey{}, err
	}
	return f.Store.KeyRevoke(ctx, p)
}

func (f faultyStore) DiscrepancyGet(ctx context.Context, id int64) (stockd.Discrepancy, error) {
	if err := injected(ctx); err != nil {
		return stockd.Discrepancy{}, err
	}
	return f.Store.DiscrepancyGet(ctx, id)
}

func (f faultyStore) DiscrepancyList(ctx context.Context, p store.DiscrepancyListParams) ([]stockd.Discrepancy, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.DiscrepancyList(ctx, p)
}

func (f faultyStore) LedgerLastAsOf(ctx context.Context, k stockd.PositionKey, at time.Time) (stockd.LedgerEntry, bool, error) {
	if err := injected(ctx); err != nil {
		return stockd.LedgerEntry{}, false, err
	}
	return f.Store.LedgerLastAsOf(ctx, k, at)
}

func (f faultyStore) LedgerSales(ctx context.Context, sku, location string, from, to time.Time) ([]stockd.SalesBucket, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.LedgerSales(ctx, sku, location, from, to)
}

func (f faultyStore) DemandHistoryPut(ctx context.Context, p store.DemandHistoryPutParams) error {
	if err := injected(ctx); err != nil {
		return err
	}
	return f.Store.DemandHistoryPut(ctx, p)
}

func (f faultyStore) DemandHistoryList(ctx context.Context, p store.DemandHistoryListParams) ([]stockd.DemandDay, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.DemandHistoryList(ctx, p)
}

func (f faultyStore) WebhookCreate(ctx context.Context, p store.WebhookCreateParams) error {
	if err := injected(ctx); err != nil {
		return err
	}
	return f.Store.WebhookCreate(ctx, p)
}

func (f faultyStore) WebhookGet(ctx context.Context, id string) (stockd.Webhook, error) {
	if err := injected(ctx); err != nil {
		return stockd.Webhook{}, err
	}
	return f.Store.WebhookGet(ctx, id)
}

func (f faultyStore) WebhookList(ctx context.Context) ([]stockd.Webhook, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.WebhookList(ctx)
}

func (f faultyStore) WebhookRedeliver(ctx context.Context, p store.WebhookRedeliverParams) (stockd.Webhook, error) {
	if err := injected(ctx); err != nil {
		return stockd.Webhook{}, err
	}
	return f.Store.WebhookRedeliver(ctx, p)
}

func (f faultyStore) WebhookDisable(ctx context.Context, p store.WebhookDisableParams) (stockd.Webhook, error) {
	if err := injected(ctx); err != nil {
		return stockd.Webhook{}, err
	}
	return f.Store.WebhookDisable(ctx, p)
}

func (f faultyStore) WebhookDeliveryList(ctx context.Context, p store.WebhookDeliveryListParams) ([]stockd.WebhookDelivery, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.WebhookDeliveryList(ctx, p)
}

// clock is the engine's clock, which a test moves forward to expire
// reservations without sleeping.
type clock struct {
	mu     sync.Mutex
	offset time.Duration
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset)
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
}

func (f faultyStore) AlertGet(ctx context.Context, id int64) (stockd.Alert, error) {
	if err := injected(ctx); err != nil {
		return stockd.Alert{}, err
	}
	return f.Store.AlertGet(ctx, id)
}

func (f faultyStore) AlertList(ctx context.Context, p store.AlertListParams) ([]stockd.Alert, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.AlertList(ctx, p)
}

func (f faultyStore) AlertAck(ctx context.Context, p store.AlertAckParams) (stockd.Alert, error) {
	if err := injected(ctx); err != nil {
		return stockd.Alert{}, err
	}
	return f.Store.AlertAck(ctx, p)
}

func (f faultyStore) AlertDeliveryList(ctx context.Context, alertID int64) ([]stockd.AlertDelivery, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.AlertDeliveryList(ctx, alertID)
}

func (f faultyStore) ReservationList(ctx context.Context, p store.ReservationListParams) ([]stockd.Reservation, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.ReservationList(ctx, p)
}

func (f faultyStore) AuditEventList(ctx context.Context, p store.AuditEventListParams) ([]stockd.AuditEvent, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.AuditEventList(ctx, p)
}

func (f faultyStore) PositionListBySKUs(ctx context.Context, skus []string) ([]stockd.Position, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.PositionListBySKUs(ctx, skus)
}

func (f faultyStore) ExceptionGet(ctx context.Context, id string) (stockd.Exception, error) {
	if err := injected(ctx); err != nil {
		return stockd.Exception{}, err
	}
	return f.Store.ExceptionGet(ctx, id)
}

func (f faultyStore) ExceptionList(ctx context.Context, p store.ExceptionListParams) ([]stockd.Exception, error) {
	if err := injected(ctx); err != nil {
		return nil, err
	}
	return f.Store.ExceptionList(ctx, p)
}
