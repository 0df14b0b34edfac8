package stockd

// deductionRefusal says why a reservation may not hold sku the way it
// asks, or returns nil when it may. The timing is the SKU's choice of when
// an order takes stock:
//   - at_order (and a SKU stored before timings existed): held with a TTL,
//     as every reservation.
//   - at_payment: held only once paid, so the reservation must commit at
//     once; a pending hold would sell the same unit to an unpaid cart.
//   - at_shipment: never held; stock leaves on shipment, and available is
//     only an estimate of what orders can still get.
func deductionRefusal(sku SKU, commit bool) *Error {
	switch sku.Deduction {
	case DeductionAtPayment:
		if !commit {
			return Errorf(CodeDeductionTiming, "sku %q deducts at payment: reserve it with commit: true", sku.ID)
		}
	case DeductionAtShipment:
		return Errorf(CodeDeductionTiming, "sku %q deducts at shipment: reservations hold none of it", sku.ID)
	}
	return nil
}
