// Package flowtest is the engine's business flows, run against every
// storage backend: each test drives a real engine through a Harness, as the
// service does, and checks what the engine answers and what it leaves in
// the books. Its files are named by resource, as the domain package's are.
//
// It lives beside the engine because a failure here is a broken business
// rule, not a broken database: the storage seam's own tests are in
// store/storetest, so that an engine change no longer shows up as a store
// failure.
package flowtest

import (
	"testing"

	"github.com/stockd/stockd/store"
)

// Exercise runs every flow; newStore returns an empty migrated store, one
// per test.
func Exercise(t *testing.T, newStore func(t testing.TB) store.Store) {
	// The names are those the flows had in store/storetest, so that test
	// history stays comparable.
	tests := []struct {
		name string
		fn   func(t *testing.T, h *Harness)
	}{
		// receive.go, reserve.go, transition.go
		{"ReceivePositions", testReceivePositions},
		{"OrderStrategies", testOrderStrategies},
		{"OrderDeductionTiming", testOrderDeductionTiming},
		{"ReservationLifecycle", testReservationLifecycle},
		// returns.go
		{"FlowRefundBeforeShipment", testFlowRefund},
		{"FlowRefundRace", testFlowRefundRace},
		{"FlowReturnAfterShipment", testFlowReturn},
		{"FlowQuarantine", testFlowQuarantine},
		{"FlowMoves", testFlowMoves},
		// shipment.go
		{"FlowShipment", testFlowShipment},
		// transfer.go
		{"FlowTransfer", testFlowTransfer},
		{"FlowTransferReceiptRace", testFlowTransferReceiptRace},
		// purchaseorder.go
		{"FlowPurchaseOrder", testFlowPurchaseOrder},
		{"FlowPurchaseOrderCancelRace", testFlowPurchaseOrderCancelRace},
		{"FlowPurchaseOrderCreateRace", testFlowPurchaseOrderCreateRace},
		// pool.go, campaign.go, allocation.go
		{"PoolCreate", testPoolCreate},
		{"OrderPools", testOrderPools},
		{"CampaignClose", testCampaignClose},
		{"CampaignCloseRace", testCampaignCloseRace},
		{"CampaignReturnsFromTwo", testCampaignReturnsFromTwo},
		{"CampaignStockOnlyByAllocation", testCampaignStockOnlyByAllocation},
		{"Allocation", testAllocation},
		// approval.go
		{"Approval", testApproval},
		{"ApprovalRefusals", testApprovalRefusals},
		{"ApprovalRace", testApprovalRace},
		// bundle.go
		{"OrderBundles", testOrderBundles},
		{"OrderBundleRace", testOrderBundleRace},
		{"OrderBundleHoldsNoStock", testOrderBundleHoldsNoStock},
		// purchaselimit.go
		{"OrderLimits", testOrderLimits},
		{"OrderLimitRace", testOrderLimitRace},
		{"AuditLimitPartialRefund", testLimitPartialRefund},
		{"AuditLimitPartialRefundRace", testLimitPartialRefundRace},
		// settings.go
		{"Settings", testSettings},
		{"SettingsRace", testSettingsRace},
		{"ReplenishmentSettingsRace", testReplenishmentSettingsRace},
		// audit.go
		{"AuditInboundClean", testAuditInboundClean},
		{"AuditInboundReports", testAuditInboundReports},
		// businessnumber.go
		{"OrderUnique", testOrderUnique},
		{"OrderUniqueRace", testOrderUniqueRace},
		{"ReferenceUnique", testReferenceUnique},
		{"ReferenceUniqueRace", testReferenceUniqueRace},
		// latepay.go
		{"LatePayment", testLatePayment},
		{"LatePaymentRefusals", testLatePaymentRefusals},
		{"LatePaymentRace", testLatePaymentRace},
		{"LatePaymentFreesOrderInBatch", testLatePaymentFreesOrderInBatch},
		// property.go
		{"FlowProperty", testFlowProperty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.fn(t, NewHarness(t, newStore(t)))
		})
	}
}
