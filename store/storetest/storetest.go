// Package storetest is the conformance suite of the storage seam: the same
// tests, unchanged, against SQLite and PostgreSQL, each calling store.Store
// and store.Tx methods and checking what they answer, refuse and keep. A
// change to the seam extends it; files are named by the seam's method
// groups (store/store.go).
//
// The tests put their data in through a real engine (engine/flowtest's
// harness), as the service does; the business flows built on the engine
// are engine/flowtest's, so that an engine change does not show up here.
package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine/flowtest"
	"github.com/stockd/stockd/store"
)

// Exercise runs the suite; newStore returns an empty migrated store.
func Exercise(t *testing.T, newStore func(t testing.TB) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, h *flowtest.Harness)
	}{
		{"Catalogue", testCatalogue},                                   // catalogue.go
		{"SKUList", testSKUList},                                       // catalogue.go
		{"EnsureSkipsUnknown", testEnsureSkipsUnknown},                 // positions.go
		{"BatchRowsRead", testBatchRowsRead},                           // positions.go
		{"ConstraintsAreLastLine", testConstraintsAreLastLine},         // positions.go
		{"ReservationListDue", testReservationListDue},                 // reservations.go
		{"TimesRoundTrip", testTimesRoundTrip},                         // reservations.go
		{"Documents", testDocuments},                                   // documents.go
		{"IdempotencySurvivesRestart", testIdempotencySurvivesRestart}, // idempotency.go
		{"LedgerList", testLedgerList},                                 // ledger.go
		{"LedgerUnique", testLedgerUnique},                             // ledger.go
		{"LedgerSales", testLedgerSales},                               // ledger.go
		{"VerifyReports", testVerifyReports},                           // auditread.go
		{"HealthWrite", testHealthWrite},                               // health.go
		{"AuditTrail", testAuditTrail},                                 // auditevent.go
		{"KeyLifecycle", testKeyLifecycle},                             // keys.go
		{"KeyHashUnique", testKeyHashUnique},                           // keys.go
		{"KeyCreateBounded", testKeyCreateBounded},                     // keys.go
		{"MigrateIdempotent", testMigrateIdempotent},                   // migrate.go
		{"RelayLease", testRelayLease},                                 // relay.go
		{"ReconcileRecord", testReconcileRecord},                       // reconcile.go
		{"ReconcileReads", testReconcileReads},                         // reconcile.go
		{"LedgerLastAsOf", testLedgerLastAsOf},                         // reconcile.go
		{"DiscrepanciesLock", testDiscrepanciesLock},                   // correction.go
		{"AlertLifecycle", testAlertLifecycle},                         // alerts.go
		{"AlertDeliveriesAndCursor", testAlertDeliveriesAndCursor},     // alerts.go
		{"DemandHistory", testDemandHistory},                           // demand.go
		{"OrderIDUnique", testOrderIDUnique},                           // businessnumbers.go
		{"ReferenceKeyUnique", testReferenceKeyUnique},                 // businessnumbers.go
		{"LedgerFilters", testLedgerFilters},                           // ledger.go
		{"ReservationList", testReservationList},                       // reservations.go
		{"PositionListBySKUs", testPositionListBySKUs},                 // positions.go
		{"WebhookLifecycle", testWebhookLifecycle},                     // webhooks.go
		{"WebhookBounds", testWebhookBounds},                           // webhooks.go
		{"LedgerArchive", testLedgerArchive},                           // ledgerarchive.go
		{"LedgerArchiveSteps", testLedgerArchiveSteps},                 // ledgerarchive.go
		{"LedgerCursorList", testLedgerCursorList},                     // ledgerarchive.go
		{"IdempotencyPrune", testIdempotencyPrune},                     // retention.go
		{"Exceptions", testExceptions},                                 // exceptions.go
		{"SKUAlertLine", testSKUAlertLine},                             // alerts.go
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, flowtest.NewHarness(t, newStore(t)))
		})
	}
}

// ctx is the context of every call the tests make themselves.
var ctx = context.Background()

// line asks for q of sku wherever placement puts it.
func line(sku string, q int64) stockd.LineRequest { return stockd.LineRequest{SKU: sku, Quantity: q} }

// isNotFound reports whether a store read found nothing.
func isNotFound(err error) bool { return errors.Is(err, stockd.ErrNotFound) }

// storeLedger selects a page of the ledger, of one SKU unless sku is empty.
func storeLedger(sku string, after int64, limit int) store.LedgerListParams {
	return store.LedgerListParams{SKU: sku, After: after, Limit: limit}
}
