package httpapi

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/stockd/stockd/internal/jsonappend"
)

// jsonAppender is an answer type that writes its own JSON, byte for byte
// what encoding/json writes for it, without reflection: the answers of
// the hot path (a reservation) are encoded this way. encode_test.go holds
// each one to json.Marshal, field by field.
type jsonAppender interface {
	appendJSON(b []byte) []byte
}

// appendJSONString appends s as encoding/json quotes it: by hand where
// jsonappend covers it, else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	if out, ok := jsonappend.String(b, s); ok {
		return out
	}
	return appendMarshalled(b, s)
}

// appendJSONTime appends t as time.Time's MarshalJSON writes it.
func appendJSONTime(b []byte, t time.Time) []byte {
	if out, ok := jsonappend.Time(b, t); ok {
		return out
	}
	return appendMarshalled(b, t)
}

// appendMarshalled appends v as encoding/json encodes it. Every answer is
// one of our own types: failing to encode one is a bug, as in writeBody.
func appendMarshalled(b []byte, v any) []byte {
	encoded, err := json.Marshal(v)
	if err != nil {
		panic("httpapi: answer not encodable: " + err.Error())
	}
	return append(b, encoded...)
}

// appendJSONField appends ,"name": (without the comma for the first field).
func appendJSONField(b []byte, name string, first bool) []byte {
	if !first {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, '"', ':')
}

func (r Reservation) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendJSONField(b, "id", true)
	b = appendJSONString(b, r.ID)
	b = appendJSONField(b, "key", false)
	b = appendJSONString(b, r.Key)
	b = appendJSONField(b, "status", false)
	b = appendJSONString(b, r.Status)
	b = appendJSONField(b, "expires_at", false)
	b = appendJSONTime(b, r.ExpiresAt)
	b = appendJSONField(b, "created_at", false)
	b = appendJSONTime(b, r.CreatedAt)
	b = appendJSONField(b, "updated_at", false)
	b = appendJSONTime(b, r.UpdatedAt)
	for _, f := range [...]struct{ name, value string }{
		{"release_reason", r.ReleaseReason}, {"customer_id", r.CustomerID}, {"order_id", r.OrderID},
	} {
		if f.value != "" {
			b = appendJSONField(b, f.name, false)
			b = appendJSONString(b, f.value)
		}
	}
	b = appendJSONField(b, "lines", false)
	if r.Lines == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, l := range r.Lines {
			if i > 0 {
				b = append(b, ',')
			}
			b = l.appendJSON(b)
		}
		b = append(b, ']')
	}
	if r.Expired {
		b = appendJSONField(b, "expired", false)
		b = append(b, "true"...)
	}
	if r.ReReserved {
		b = appendJSONField(b, "re_reserved", false)
		b = append(b, "true"...)
	}
	return append(b, '}')
}

func (l ReservationLine) appendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendJSONField(b, "sku", true)
	b = appendJSONString(b, l.SKU)
	b = appendJSONField(b, "quantity", false)
	b = strconv.AppendInt(b, l.Quantity, 10)
	b = appendJSONField(b, "location", false)
	b = appendJSONString(b, l.Location)
	b = appendJSONField(b, "pool", false)
	b = appendJSONString(b, l.Pool)
	if l.Bundle != "" {
		b = appendJSONField(b, "bundle", false)
		b = appendJSONString(b, l.Bundle)
	}
	for _, f := range [...]struct {
		name  string
		value int64
	}{{"refunded", l.Refunded}, {"shipped", l.Shipped}, {"returned", l.Returned}} {
		if f.value != 0 {
			b = appendJSONField(b, f.name, false)
			b = strconv.AppendInt(b, f.value, 10)
		}
	}
	return append(b, '}')
}
