// Package webhook signs and verifies stockd's outgoing HTTP deliveries:
// the event webhooks (package dispatch) and the alert webhook sink
// (alert.Webhook) sign alike, so one receiver check serves both. HeaderSignature
// is "sha256=" and the hex HMAC-SHA256, under the endpoint's secret, of
// the HeaderTimestamp value (Unix seconds), a dot and the body. Signing
// the timestamp lets a receiver refuse an old delivery replayed.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// Headers of a delivery.
const (
	HeaderTimestamp = "X-Stockd-Timestamp"
	HeaderSignature = "X-Stockd-Signature"
)

// signaturePrefix names the MAC, so that another can follow it.
const signaturePrefix = "sha256="

// Sign is the value of HeaderSignature for a timestamp and body.
func Sign(secret []byte, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(timestamp))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}

// Timestamp is the value of HeaderTimestamp for t.
func Timestamp(t time.Time) string { return strconv.FormatInt(t.Unix(), 10) }

// ErrBadSignature is Verify's refusal.
var ErrBadSignature = errors.New("webhook signature does not verify")

// Verify is what a receiver runs: the signature must match, compared in
// constant time, and the timestamp be within tolerance of now.
func Verify(secret []byte, timestamp string, body []byte, signature string, now time.Time, tolerance time.Duration) error {
	if !hmac.Equal([]byte(Sign(secret, timestamp, body)), []byte(signature)) {
		return ErrBadSignature
	}
	unix, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return fmt.Errorf("%w: timestamp %q", ErrBadSignature, timestamp)
	}
	if age := now.Sub(time.Unix(unix, 0)); age > tolerance || age < -tolerance {
		return fmt.Errorf("%w: timestamp %s is %s from now", ErrBadSignature, timestamp, age)
	}
	return nil
}
