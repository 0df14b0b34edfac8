package stockd

import (
	"slices"
	"strings"
)

const KindNotice CommandKind = "notice"

// Limits of a notice.
const (
	// NoticeSubjectLengthMax bounds a notice's subject, so that its
	// idempotency key (NoticeCommand) stays within IdempotencyKeyLengthMax.
	NoticeSubjectLengthMax = 64
	// NoticeReasonLengthMax bounds the notice's short text.
	NoticeReasonLengthMax = NameLengthMax
)

// Notice writes the event of a record that is not stock (a discrepancy
// opened or closed, an alert raised, escalated, acknowledged or resolved,
// an exception recorded or resolved) on the ledger: zero-delta entries of
// an event-only type (EventOnly), so that /v1/events, the relay and the
// webhooks carry it in order with the changes, and nothing that sums the
// books counts it. Its business id is "<type>:<subject>", unique per
// position by the ledger's UNIQUE; build the command with NoticeCommand,
// whose idempotency key makes a repeated notice a replay.
//
// Where it sits: at Position when set (a discrepancy at a position); else
// at the SKU's positions in the normal pool, or all its positions if it
// has none there; else (no SKU, or a SKU never stocked) at one entry of
// the SKU, or of no SKU, with no location and no pool.
type Notice struct {
	Type string
	// Subject names the record and, where one record has several events
	// of a type, the step: a discrepancy id, "<alert id>/<version>".
	Subject  string
	SKU      string
	Position *PositionKey
	// Reason is a short text for a person: the kind, the level.
	Reason string
}

// NoticeCommand is the command of n, under the idempotency key that makes
// a worker's retry (after a crash, a timeout) a replay of the first.
func NoticeCommand(n Notice, actor string) Command {
	key := "notice:" + n.Type + ":" + n.Subject
	return Command{Op: &n, IdempotencyKey: key, RequestHash: key, Actor: actor}
}

func (n *Notice) Kind() CommandKind { return KindNotice }

// Touches locks the SKU's positions: the notice copies their counters.
func (n *Notice) Touches(t *Touches) {
	if n.SKU != "" {
		t.SKUs = append(t.SKUs, n.SKU)
	}
}

func (n *Notice) normalize() *Error {
	if !slices.Contains(NoticeTypes, n.Type) {
		return InvalidField("type", "must be one of %s", strings.Join(NoticeTypes, ", "))
	}
	if n.Subject == "" || len(n.Subject) > NoticeSubjectLengthMax || !printable(n.Subject) {
		return InvalidField("subject", "must be 1-%d printable characters", NoticeSubjectLengthMax)
	}
	if n.Position != nil {
		if err := NormalizeKey(n.Position); err != nil {
			return err
		}
		if n.SKU == "" {
			n.SKU = n.Position.SKU
		}
		if n.SKU != n.Position.SKU {
			return InvalidField("sku", "must be the position's")
		}
	}
	if n.SKU != "" && !ValidIdentifier(n.SKU) {
		return InvalidField("sku", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	return validText("reason", n.Reason, NoticeReasonLengthMax, false)
}

// printable reports whether s is printable ASCII without spaces.
func printable(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// NoticeAnswer is a notice's answer: its business id and the positions
// it was written at.
type NoticeAnswer struct {
	Type       string        `json:"type"`
	BusinessID string        `json:"business_id"`
	Positions  []PositionKey `json:"positions"`
}

func (n *Notice) decide(s *BatchState, c *Command) Result {
	if n.SKU != "" {
		if _, ok := s.SKUs[n.SKU]; !ok {
			return Result{Err: Errorf(CodeUnknownSKU, "sku %q is unknown", n.SKU)}
		}
	}
	keys := n.positions(s)
	answer := NoticeAnswer{Type: n.Type, BusinessID: s.writeNotice(n.Type, n.Subject, c.Actor, n.Reason, keys), Positions: keys}
	return Result{Object: objectOf(answer), Created: true}
}

// writeNotice books the event entries of a notice at keys (in lock order)
// and returns their business id. A record decided inside a batch (an
// exception) tells of itself this way, in its own transaction.
func (s *BatchState) writeNotice(typ, subject, actor, reason string, keys []PositionKey) string {
	businessID := typ + ":" + subject
	for _, k := range keys {
		s.writes.Ledger = append(s.writes.Ledger, LedgerEntry{
			BusinessType: typ, BusinessID: businessID, Position: k,
			After: s.peek(k), Actor: actor, Reason: reason, CreatedAt: s.Now,
		})
	}
	return businessID
}

// positions says where the notice sits (see Notice), in lock order.
func (n *Notice) positions(s *BatchState) []PositionKey {
	if n.Position != nil {
		if _, ok := s.Positions[*n.Position]; ok {
			return []PositionKey{*n.Position}
		}
	}
	var normal, all []PositionKey
	if n.SKU != "" {
		for k := range s.Positions {
			if k.SKU != n.SKU {
				continue
			}
			all = append(all, k)
			if k.Pool == PoolDefault {
				normal = append(normal, k)
			}
		}
	}
	keys := normal
	if len(keys) == 0 {
		keys = all
	}
	if len(keys) == 0 {
		return []PositionKey{{SKU: n.SKU}}
	}
	slices.SortFunc(keys, func(a, b PositionKey) int { return compareBy(a, b, PositionKey.Less) })
	return keys
}
