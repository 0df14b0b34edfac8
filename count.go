package stockd

import (
	"fmt"
	"time"
)

// CountRowsMax bounds the rows of one physical count (a POST /v1/counts
// body, a file stockd import counts reads).
const CountRowsMax = 500

// CountSkewMax is how far in the future a count's time may lie: a
// scanner's clock a little ahead of the server's is not a count of stock
// the ledger has not seen yet.
const CountSkewMax = time.Minute

// CountRow is one physical count: the units found of a SKU at a location,
// every pool's together, when they were counted.
type CountRow struct {
	SKU           string    `json:"sku"`
	Location      string    `json:"location"`
	CountedOnHand int64     `json:"counted_on_hand"`
	CountedAt     time.Time `json:"counted_at"`
}

// Normalize defaults the location and checks the row at now.
func (r *CountRow) Normalize(now time.Time) *Error {
	if r.Location == "" {
		r.Location = LocationDefault
	}
	if !ValidIdentifier(r.SKU) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if !ValidIdentifier(r.Location) {
		return InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if r.CountedOnHand < 0 || r.CountedOnHand > QuantityMax {
		return InvalidField("counted_on_hand", "must be an integer from 0 to %d", QuantityMax)
	}
	at, err := NormalizeTime("counted_at", r.CountedAt)
	if err != nil {
		return err
	}
	if at.After(now.Add(CountSkewMax)) {
		return InvalidField("counted_at", "must not lie in the future (more than %s ahead of the server's clock)", CountSkewMax)
	}
	r.CountedAt = at
	return nil
}

// NormalizeCount checks every row of a count, naming the first bad one.
func NormalizeCount(rows []CountRow, now time.Time) *Error {
	if len(rows) == 0 || len(rows) > CountRowsMax {
		return InvalidField("rows", "must hold 1 to %d rows", CountRowsMax)
	}
	for i := range rows {
		if err := rows[i].Normalize(now); err != nil {
			err.Message = fmt.Sprintf("row %d: %s: %s", i+1, err.Field, err.Message)
			return err
		}
	}
	return nil
}
