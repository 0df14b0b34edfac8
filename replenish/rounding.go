package replenish

import "math"

// integerTolerance is how close to an integer a figure must come to be
// taken as that integer before rounding up. Floating point lands a hair
// off exact sums (0.1·30 is 3.0000000000000004, which a bare ceil turns
// into 4 units); the noise of the few operations here is below 10^-15 of
// the value, while one part in 10^9 is still under one unit for any figure
// below 10^9 units, so no real buffer is rounded away by the guard.
const integerTolerance = 1e-9

// ceilUnits rounds a figure up to whole units: a buffer is never rounded
// away (seed 003 §4.2 rounds 15.7 to 16 and 117.5 to 118).
func ceilUnits(x float64) int64 {
	return int64(math.Ceil(x - integerTolerance*math.Max(1, math.Abs(x))))
}

// OrderQuantity turns a raw need in units into something a supplier
// accepts: 0 when the need is not positive, else rounded up to whole units,
// raised to minOrderQuantity, and rounded up to a multiple of orderMultiple
// (the seed's "MOQ 50": 375 becomes 400). The result is a multiple of
// orderMultiple and at least minOrderQuantity. orderMultiple must be ≥ 1.
func OrderQuantity(needUnits float64, orderMultiple, minOrderQuantity int64) int64 {
	units := ceilUnits(needUnits)
	if units <= 0 {
		return 0
	}
	units = max(units, minOrderQuantity)
	return (units + orderMultiple - 1) / orderMultiple * orderMultiple
}
