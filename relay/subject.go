package relay

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// SubjectPrefix starts every subject the relay publishes:
// stockd.<environment>.<event type>.<sku>.
const SubjectPrefix = "stockd"

// EnvironmentLengthMax bounds the environment tag.
const EnvironmentLengthMax = 32

// ValidEnvironment reports whether env may tag subjects: 1 to 32 of
// [A-Za-z0-9_-], a NATS token that needs no escaping, so that a consumer
// can write the filter stockd.<env>.> by hand.
func ValidEnvironment(env string) bool {
	if len(env) == 0 || len(env) > EnvironmentLengthMax {
		return false
	}
	for i := 0; i < len(env); i++ {
		c := env[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// Subject is the subject of one event: stockd.<env>.<type>.<sku>, the
// type and SKU escaped by EscapeToken. An event of no SKU (a notice such as
// a relay_lag discrepancy's) has the token NoSKUToken: NATS refuses an
// empty token, and no escaped SKU is a lone '%'.
func Subject(env, eventType, sku string) string {
	token := NoSKUToken
	if sku != "" {
		token = EscapeToken(sku)
	}
	return SubjectPrefix + "." + env + "." + EscapeToken(eventType) + "." + token
}

// NoSKUToken is the SKU token of events about no SKU.
const NoSKUToken = "%"

// EventID is the event's Nats-Msg-Id: the environment and the ledger seq,
// unique per database and environment, so that two environments sharing a
// stream never drop each other's events as duplicates.
func EventID(env string, seq int64) string {
	return env + ":" + strconv.FormatInt(seq, 10)
}

// EscapeToken makes s one NATS subject token. NATS forbids '.' (the token
// separator), '*' and '>' (wildcards) and whitespace inside a token; they
// become %XX (two upper-case hex digits of the byte), as do '%' itself,
// control bytes and every byte outside printable ASCII, so the escape is
// reversible (UnescapeToken) and a subject is plain ASCII. SKUs are
// [A-Za-z0-9._:-], so in practice only '.' is escaped: sku "a.b" is the
// token "a%2Eb".
func EscapeToken(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '.' || c == '*' || c == '>' || c == '%' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// UnescapeToken reverses EscapeToken.
func UnescapeToken(token string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(token); i++ {
		if token[i] != '%' {
			b.WriteByte(token[i])
			continue
		}
		if i+2 >= len(token) {
			return "", fmt.Errorf("token %q: %% at %d without two hex digits", token, i)
		}
		v, err := strconv.ParseUint(token[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("token %q: bad escape at %d", token, i)
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// CheckURL refuses a NATS URL list the relay could never connect with:
// each comma-separated entry must be host:port or a nats://, tls://, ws://
// or wss:// URL with a host. An unreachable server is not refused: the
// relay waits for it. Errors never repeat the URL, which may hold a
// password.
func CheckURL(list string) error {
	for i, entry := range strings.Split(list, ",") {
		entry = strings.TrimSpace(entry)
		if !strings.Contains(entry, "://") {
			entry = "nats://" + entry
		}
		u, err := url.Parse(entry)
		if err != nil {
			var uerr *url.Error
			if errors.As(err, &uerr) {
				err = uerr.Err
			}
			return fmt.Errorf("nats url %d of the list: %w", i+1, err)
		}
		switch u.Scheme {
		case "nats", "tls", "ws", "wss":
		default:
			return fmt.Errorf("nats url %d of the list: scheme %q, want nats, tls, ws or wss", i+1, u.Scheme)
		}
		if u.Hostname() == "" {
			return fmt.Errorf("nats url %d of the list: no host", i+1)
		}
	}
	return nil
}
