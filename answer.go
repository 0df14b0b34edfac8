package stockd

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/stockd/stockd/internal/jsonappend"
)

// answerJSON encodes a command's answer for its idempotency record. Every
// command with a key stores one, so the answer that holds only a
// reservation (every reservation created, confirmed, released) is written
// by hand, byte for byte what encoding/json writes, at a fraction of the
// cost of reflection; any other answer, or one with a string or time
// encoding/json would escape or refuse, goes through json.Marshal.
func answerJSON(r *Result) []byte {
	size := answerSizeBase
	if r.Reservation != nil {
		size += answerLineSize * len(r.Reservation.Lines)
	}
	if body, ok := appendReservationAnswer(make([]byte, 0, size), r); ok {
		return body
	}
	// A copy, so that r itself does not escape to the heap on the path
	// every reservation takes.
	body, err := json.Marshal(*r)
	if err != nil {
		panic(fmt.Sprintf("stockd: result not encodable: %v", err))
	}
	return body
}

// answerSizeBase and answerLineSize size the buffer of a reservation's
// answer so that it rarely grows: its fields and times, plus each line.
const (
	answerSizeBase = 320
	answerLineSize = 128
)

// appendReservationAnswer appends r as encoding/json would, when r holds
// only a reservation and its flags; false when it holds anything else or
// a value the hand encoding does not cover.
func appendReservationAnswer(b []byte, r *Result) ([]byte, bool) {
	if r.Err != nil || r.SKU != nil || r.Location != nil || r.Position != nil || r.Reservation == nil || len(r.Object) != 0 {
		return b, false
	}
	res := r.Reservation
	var ok bool
	b = append(b, `{"reservation":{"id":`...)
	if b, ok = jsonappend.String(b, res.ID); !ok {
		return b, false
	}
	b = append(b, `,"key":`...)
	if b, ok = jsonappend.String(b, res.Key); !ok {
		return b, false
	}
	b = append(b, `,"status":`...)
	if b, ok = jsonappend.String(b, string(res.Status)); !ok {
		return b, false
	}
	b = append(b, `,"lines":`...)
	if res.Lines == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range res.Lines {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendLine(b, &res.Lines[i]); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if res.CustomerID != "" {
		b = append(b, `,"customer_id":`...)
		if b, ok = jsonappend.String(b, res.CustomerID); !ok {
			return b, false
		}
	}
	if res.OrderID != "" {
		b = append(b, `,"order_id":`...)
		if b, ok = jsonappend.String(b, res.OrderID); !ok {
			return b, false
		}
	}
	for _, f := range []struct {
		name string
		at   time.Time
	}{{`,"expires_at":`, res.ExpiresAt}, {`,"created_at":`, res.CreatedAt}, {`,"updated_at":`, res.UpdatedAt}} {
		b = append(b, f.name...)
		if b, ok = jsonappend.Time(b, f.at); !ok {
			return b, false
		}
	}
	if res.ReleaseReason != "" {
		b = append(b, `,"release_reason":`...)
		if b, ok = jsonappend.String(b, res.ReleaseReason); !ok {
			return b, false
		}
	}
	b = append(b, '}')
	if r.Created {
		b = append(b, `,"created":true`...)
	}
	if r.ReReserved {
		b = append(b, `,"re_reserved":true`...)
	}
	if r.Pending {
		b = append(b, `,"pending":true`...)
	}
	if r.Version != 0 {
		b = append(b, `,"version":`...)
		b = strconv.AppendInt(b, r.Version, 10)
	}
	return append(b, '}'), true
}

// appendLine appends one reservation line as encoding/json would.
func appendLine(b []byte, l *ReservationLine) ([]byte, bool) {
	var ok bool
	b = append(b, `{"sku":`...)
	if b, ok = jsonappend.String(b, l.SKU); !ok {
		return b, false
	}
	b = append(b, `,"quantity":`...)
	b = strconv.AppendInt(b, l.Quantity, 10)
	b = append(b, `,"location":`...)
	if b, ok = jsonappend.String(b, l.Location); !ok {
		return b, false
	}
	b = append(b, `,"pool":`...)
	if b, ok = jsonappend.String(b, l.Pool); !ok {
		return b, false
	}
	if l.Bundle != "" {
		b = append(b, `,"bundle":`...)
		if b, ok = jsonappend.String(b, l.Bundle); !ok {
			return b, false
		}
	}
	for _, f := range []struct {
		name  string
		value int64
	}{{`,"refunded":`, l.Refunded}, {`,"shipped":`, l.Shipped}, {`,"returned":`, l.Returned}} {
		if f.value != 0 {
			b = append(b, f.name...)
			b = strconv.AppendInt(b, f.value, 10)
		}
	}
	return append(b, '}'), true
}
