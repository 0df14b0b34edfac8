package stockd

import (
	"time"
	"unicode"
	"unicode/utf8"
)

// ValidIdentifier reports whether s is 1-64 characters of [A-Za-z0-9._:-].
// SKU, location and pool ids share this shape.
func ValidIdentifier(s string) bool {
	if len(s) == 0 || len(s) > IdentifierLengthMax {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '.', c == '_', c == ':', c == '-':
		default:
			return false
		}
	}
	return true
}

// ValidIdempotencyKey reports whether key is 1-128 printable ASCII characters.
func ValidIdempotencyKey(key string) bool {
	if len(key) == 0 || len(key) > IdempotencyKeyLengthMax {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x20 || key[i] > 0x7e {
			return false
		}
	}
	return true
}

// PlainText reports whether s is valid UTF-8 without control characters.
// Free text ends up in both databases, in logs and in other systems'
// feeds: PostgreSQL refuses a NUL byte where SQLite stores it, and a
// newline or an escape sequence in a log line forges another line. One
// rule at the edge keeps both databases answering alike.
func PlainText(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

func validText(field, s string, lengthMax int, required bool) *Error {
	if required && s == "" {
		return InvalidField(field, "is required")
	}
	if len(s) > lengthMax {
		return InvalidField(field, "longer than %d bytes", lengthMax)
	}
	if !PlainText(s) {
		return InvalidField(field, "must be UTF-8 text without control characters")
	}
	return nil
}

// NormalizeTime returns t in UTC at the microsecond both databases keep,
// or an error when its UTC year lies outside TimeYearMin to TimeYearMax:
// a time the API could not write back as RFC 3339 and PostgreSQL and
// SQLite would store differently, if at all.
func NormalizeTime(field string, t time.Time) (time.Time, *Error) {
	utc := t.UTC().Truncate(time.Microsecond)
	if y := utc.Year(); y < TimeYearMin || y > TimeYearMax {
		return time.Time{}, InvalidField(field, "must be a time from year %d to %d in UTC", TimeYearMin, TimeYearMax)
	}
	return utc, nil
}

func validQuantity(field string, q int64) *Error {
	if q <= 0 || q > QuantityMax {
		return InvalidField(field, "must be an integer from 1 to %d", QuantityMax)
	}
	return nil
}

// NormalizeKey fills the default location and pool and validates the key.
func NormalizeKey(k *PositionKey) *Error {
	if k.Location == "" {
		k.Location = LocationDefault
	}
	if k.Pool == "" {
		k.Pool = PoolDefault
	}
	if !ValidIdentifier(k.SKU) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if !ValidIdentifier(k.Location) {
		return InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if !ValidIdentifier(k.Pool) {
		return InvalidField("pool", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	return nil
}

var adjustReasons = map[string]bool{
	ReasonCycleCount: true, ReasonDamage: true, ReasonLoss: true, ReasonFound: true, ReasonCorrection: true,
}

var releaseReasons = map[string]bool{
	ReleaseCancelled: true, ReleasePaymentFailed: true, ReleaseRiskRejected: true, ReleaseOther: true,
}

// Normalize fills defaults and checks every bound of c. A command that
// fails here never reaches storage.
func (c *Command) Normalize() *Error {
	if c.IdempotencyKey != "" && !ValidIdempotencyKey(c.IdempotencyKey) {
		return Errorf(CodeIdempotencyKeyInvalid, "idempotency key must be 1-%d printable ASCII characters", IdempotencyKeyLengthMax)
	}
	switch c.Kind {
	case KindSKUCreate:
		return normalizeSKU(c.SKU)
	case KindLocationCreate:
		return normalizeLocation(c.Location)
	case KindReceive:
		if err := NormalizeKey(&c.Receive.Position); err != nil {
			return err
		}
		if err := validQuantity("quantity", c.Receive.Quantity); err != nil {
			return err
		}
		return validText("reference", c.Receive.Reference, ReferenceLengthMax, false)
	case KindAdjust:
		return normalizeAdjust(c.Adjust)
	case KindReserve:
		return normalizeReserve(c.Reserve)
	case KindConfirm, KindExpire, KindFulfil:
		return validText("id", c.Transition.ReservationID, IdentifierLengthMax, true)
	case KindRelease:
		if err := validText("id", c.Transition.ReservationID, IdentifierLengthMax, true); err != nil {
			return err
		}
		if c.Transition.Reason == "" {
			c.Transition.Reason = ReleaseCancelled
		}
		if !releaseReasons[c.Transition.Reason] {
			return InvalidField("reason", "must be one of cancelled, payment_failed, risk_rejected, other")
		}
		return nil
	}
	if c.Op == nil || c.Op.Kind() != c.Kind {
		panic("stockd: command kind " + string(c.Kind) + " without its operation")
	}
	return c.Op.normalize()
}

func normalizeSKU(s *SKU) *Error {
	if !ValidIdentifier(s.ID) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if err := validText("name", s.Name, NameLengthMax, false); err != nil {
		return err
	}
	if s.Unit == "" {
		s.Unit = "piece"
	}
	if s.Deduction == "" {
		s.Deduction = DeductionAtOrder
	}
	switch s.Deduction {
	case DeductionAtOrder, DeductionAtPayment, DeductionAtShipment:
	default:
		return InvalidField("deduction", "must be one of at_order, at_payment, at_shipment")
	}
	if s.ApprovalThreshold < 0 || s.ApprovalThreshold > QuantityMax {
		return InvalidField("approval_threshold", "must be an integer from 1 to %d", QuantityMax)
	}
	return validText("unit", s.Unit, IdentifierLengthMax, false)
}

func normalizeLocation(l *Location) *Error {
	if !ValidIdentifier(l.ID) {
		return InvalidField("location", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if l.Priority < 0 || l.Priority > LocationPriorityMax {
		return InvalidField("priority", "must be from 0 to %d", LocationPriorityMax)
	}
	return validText("name", l.Name, NameLengthMax, false)
}

func normalizeAdjust(a *Adjust) *Error {
	if err := NormalizeKey(&a.Position); err != nil {
		return err
	}
	if !adjustReasons[a.Reason] {
		return InvalidField("reason", "must be one of cycle_count, damage, loss, found, correction")
	}
	if a.Set {
		if a.SetOnHand < 0 || a.SetOnHand > QuantityMax {
			return InvalidField("set_on_hand", "must be an integer from 0 to %d", QuantityMax)
		}
		if a.ExpectedOnHand < 0 || a.ExpectedOnHand > CounterMax {
			return InvalidField("expected_on_hand", "must be a non-negative integer")
		}
	} else if a.Delta == 0 || a.Delta < -QuantityMax || a.Delta > QuantityMax {
		return InvalidField("delta", "must be a non-zero integer from -%d to %d", QuantityMax, QuantityMax)
	}
	return validText("reference", a.Reference, ReferenceLengthMax, false)
}

// normalizeReserve validates lines and merges repeated (SKU, location, pool)
// lines into one, so that one order holds one line per position asked for.
func normalizeReserve(r *Reserve) *Error {
	if len(r.Lines) == 0 || len(r.Lines) > LinesPerReservationMax {
		return InvalidField("lines", "must hold 1 to %d lines", LinesPerReservationMax)
	}
	if r.TTL == 0 {
		r.TTL = ReservationTTLDefault
	}
	if r.Strategy == "" {
		r.Strategy = StrategyPriority
	}
	switch r.Strategy {
	case StrategyPriority, StrategySingleLocation, StrategySplit:
	default:
		return InvalidField("strategy", "must be one of priority, single_location, split")
	}
	if r.CustomerID != "" && !ValidIdentifier(r.CustomerID) {
		return InvalidField("customer_id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if r.TTL < ReservationTTLMin || r.TTL > ReservationTTLMax {
		return InvalidField("ttl_seconds", "must be from %d to %d", int(ReservationTTLMin/time.Second), int(ReservationTTLMax/time.Second))
	}
	merged := make([]LineRequest, 0, len(r.Lines))
	index := make(map[LineRequest]int, len(r.Lines))
	for _, l := range r.Lines {
		if err := validQuantity("quantity", l.Quantity); err != nil {
			return err
		}
		key := PositionKey{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
		any := key.Location == ""
		if err := NormalizeKey(&key); err != nil {
			return err
		}
		if any {
			key.Location = ""
		}
		l.SKU, l.Location, l.Pool = key.SKU, key.Location, key.Pool
		slot := LineRequest{SKU: l.SKU, Location: l.Location, Pool: l.Pool}
		if i, ok := index[slot]; ok {
			merged[i].Quantity += l.Quantity
			if merged[i].Quantity > QuantityMax {
				return InvalidField("quantity", "merged quantity of %s above %d", l.SKU, QuantityMax)
			}
			continue
		}
		index[slot] = len(merged)
		merged = append(merged, l)
	}
	r.Lines = merged
	return nil
}
