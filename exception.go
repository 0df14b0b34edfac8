package stockd

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// Exceptions are the orders the books could not serve as the customer was
// told: a payment that arrived after its reservation expired (late_payment),
// a win the Redis gate answered that the database refused (gate_oversell).
// Each is a record for a person to handle (refund, ship from elsewhere) and
// resolve with a note. Recording one changes no stock.
const (
	ExceptionLatePayment  = "late_payment"
	ExceptionGateOversell = GateExceptionOversell
)

// ExceptionKinds lists every kind: a fixed list, so that the metric of open
// exceptions by kind has a bounded label set.
var ExceptionKinds = []string{ExceptionLatePayment, ExceptionGateOversell}

// Exception statuses.
const (
	ExceptionOpen     = "open"
	ExceptionResolved = "resolved"
)

// Late confirm policies (Transition.OnLate): what a confirm that arrives
// after its reservation's deadline does.
const (
	// OnLateException records a late_payment exception and answers
	// reservation_expired naming it. The default.
	OnLateException = "exception"
	// OnLateReReserve reserves and confirms the same lines again when the
	// stock is there, and falls back to OnLateException when not.
	OnLateReReserve = "re_reserve"
)

// BusinessReReserve is the ledger entry of a line reserved again by a late
// confirm (OnLateReReserve); the confirm entries follow it.
const BusinessReReserve = "re_reserve"

// Limits of exceptions.
const (
	// PaymentReferenceLengthMax bounds a confirm's payment_reference.
	PaymentReferenceLengthMax = 128
	// PaidAtSkewMax is how far in the future (by the server's clock) a
	// confirm's paid_at may lie: the payment provider's clock may run
	// ahead, a payment from tomorrow is a bug.
	PaidAtSkewMax = 5 * time.Minute
	// ExceptionNoteLengthMax bounds the note that resolves an exception.
	ExceptionNoteLengthMax = 1000
	// ExceptionMessageLengthMax bounds the refusal an exception keeps.
	ExceptionMessageLengthMax = NameLengthMax
)

// ExceptionLine is one line the exception is about.
type ExceptionLine struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Pool     string `json:"pool,omitempty"`
	Quantity int64  `json:"quantity"`
}

// Exception is one record for a person to handle. Its ID sorts in handling
// order: by the payment time, else the gate's win time, else the creation
// time (ExceptionID), so a page of open exceptions lists the oldest
// customer first.
type Exception struct {
	ID            string          `json:"id"`
	Kind          string          `json:"kind"`
	Status        string          `json:"status"`
	ReservationID string          `json:"reservation_id"`
	CustomerID    string          `json:"customer_id,omitempty"`
	OrderID       string          `json:"order_id,omitempty"`
	Pool          string          `json:"pool,omitempty"`
	Lines         []ExceptionLine `json:"lines"`
	// PaymentReference and PaidAt are the late confirm's, when it gave them.
	PaymentReference string     `json:"payment_reference,omitempty"`
	PaidAt           *time.Time `json:"paid_at,omitempty"`
	// WonAt is when the gate answered the win of a gate_oversell.
	WonAt *time.Time `json:"won_at,omitempty"`
	// Code and Message say why the books refused: reservation_expired, or
	// what refused a re_reserve or the gate's win.
	Code       string     `json:"code"`
	Message    string     `json:"message"`
	CreatedAt  time.Time  `json:"created_at"`
	ResolvedAt *time.Time `json:"resolved_at,omitempty"`
	ResolvedBy string     `json:"resolved_by,omitempty"`
	Note       string     `json:"note,omitempty"`
}

// HandleAt is the time the exception is handled by: the payment, else the
// win, else the creation.
func (e *Exception) HandleAt() time.Time {
	switch {
	case e.PaidAt != nil:
		return *e.PaidAt
	case e.WonAt != nil:
		return *e.WonAt
	}
	return e.CreatedAt
}

// ExceptionID makes the id of an exception handled at at: the time as
// zero-padded unix microseconds (18 digits reach year 9999; times before
// 1970 count as 1970), a dash, then unique, cut to IdentifierLengthMax.
// Ids of one format sort as their times do.
func ExceptionID(at time.Time, unique string) string {
	id := fmt.Sprintf("%018d-%s", max(at.UnixMicro(), 0), unique)
	if len(id) > IdentifierLengthMax {
		id = id[:IdentifierLengthMax]
	}
	return id
}

// ExceptionKey names the exception of one kind about one reservation: at
// most one exists (a unique index on both databases).
type ExceptionKey struct {
	Kind          string
	ReservationID string
}

// ExceptionReader is what reading a batch's exceptions needs of its
// transaction; both backends' transactions implement it as part of
// BatchReader.
type ExceptionReader interface {
	// ExceptionsLock reads and locks the exceptions with these ids,
	// sorted; unknown ids are left out.
	ExceptionsLock(ctx context.Context, ids []string) ([]Exception, error)
	// ExceptionsByKey returns the exceptions recorded under these keys,
	// unlocked: a batch inserting one another batch inserted meanwhile
	// fails on the unique index, and is retried.
	ExceptionsByKey(ctx context.Context, keys []ExceptionKey) ([]Exception, error)
}

// exceptionRecord records e, unless an exception of its kind about its
// reservation exists already, and returns the one that stands. It is the
// one place an exception is created (late payments and gate oversells).
func (s *BatchState) exceptionRecord(e Exception, actor string) Exception {
	k := ExceptionKey{Kind: e.Kind, ReservationID: e.ReservationID}
	if id, ok := s.ExceptionKeys[k]; ok {
		return *s.Exceptions[id]
	}
	if e.Lines == nil {
		e.Lines = []ExceptionLine{}
	}
	e.Status = ExceptionOpen
	e.CreatedAt = s.Now
	e.ID = ExceptionID(e.HandleAt(), s.NewID())
	if len(e.Message) > ExceptionMessageLengthMax || !PlainText(e.Message) {
		e.Message = e.Code
	}
	s.Exceptions[e.ID] = &e
	s.ExceptionKeys[k] = e.ID
	s.writes.Exceptions = append(s.writes.Exceptions, e)
	s.writeNotice(NoticeException, e.ID, actor, e.Kind, s.exceptionPositions(&e))
	return e
}

// exceptionPositions says where an exception's events sit: at each SKU of
// its lines, with no location or pool, as a Notice without positions sits.
// Not at the positions themselves: a gate exception and a resolve lock no
// position, and a decision may depend only on the rows its batch locked.
func (s *BatchState) exceptionPositions(e *Exception) []PositionKey {
	keys := []PositionKey{}
	for _, l := range e.Lines {
		if k := (PositionKey{SKU: l.SKU}); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return []PositionKey{{}}
	}
	slices.SortFunc(keys, func(a, b PositionKey) int { return compareBy(a, b, PositionKey.Less) })
	return keys
}

// exceptionLines are the lines of a reservation as an exception names them.
func exceptionLines(r *Reservation) []ExceptionLine {
	out := make([]ExceptionLine, 0, len(r.Lines))
	for _, l := range r.Lines {
		out = append(out, ExceptionLine{SKU: l.SKU, Location: l.Location, Pool: l.Pool, Quantity: l.Quantity})
	}
	return out
}

const KindExceptionResolve CommandKind = "exception_resolve"

// ExceptionResolve closes an exception with a note: what was done about it.
// Resolving a resolved exception answers it unchanged (the first note
// stands).
type ExceptionResolve struct {
	ID   string
	Note string
}

func (r *ExceptionResolve) Kind() CommandKind { return KindExceptionResolve }

func (r *ExceptionResolve) Touches(t *Touches) {
	t.Exceptions = append(t.Exceptions, r.ID)
}

func (r *ExceptionResolve) normalize() *Error {
	if !ValidIdentifier(r.ID) {
		return InvalidField("id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	return validText("note", r.Note, ExceptionNoteLengthMax, true)
}

func (r *ExceptionResolve) decide(s *BatchState, c *Command) Result {
	e, ok := s.Exceptions[r.ID]
	if !ok {
		return Result{Err: Errorf(CodeNotFound, "exception %q not found", r.ID)}
	}
	if e.Status == ExceptionResolved {
		return Result{Object: objectOf(e)}
	}
	at := s.Now
	e.Status = ExceptionResolved
	e.ResolvedAt = &at
	e.ResolvedBy = c.Actor
	e.Note = r.Note
	s.exceptionsDirty[e.ID] = true
	s.writeNotice(NoticeExceptionResolved, e.ID, c.Actor, e.Kind, s.exceptionPositions(e))
	return Result{Object: objectOf(e)}
}

// lateConfirm decides a confirm that found its reservation expired (by the
// clock in this batch, or earlier by the expiry worker): it re-reserves
// when asked to and able, and otherwise records the late payment. The
// first late confirm decides: after an exception, every later one names it.
func (tr *Transition) lateConfirm(s *BatchState, c *Command, res *Reservation) Result {
	refusal := Errorf(CodeReservationExpired, "reservation %q expired before it was confirmed", res.ID)
	// Once an exception records the late payment, a person handles it: a
	// later confirm, re_reserve or not, answers the same exception rather
	// than booking stock behind the handler's back.
	_, recorded := s.ExceptionKeys[ExceptionKey{Kind: ExceptionLatePayment, ReservationID: res.ID}]
	if tr.OnLate == OnLateReReserve && !recorded {
		err := s.reReserve(res, c.Actor)
		if err == nil {
			s.retrigger(BusinessReReserve + ":" + res.ID)
			return Result{Reservation: res.snapshot(), ReReserved: true}
		}
		refusal = Errorf(err.Code, "reservation %q expired before it was confirmed and could not be reserved again: %s", res.ID, err.Message)
	}
	e := s.exceptionRecord(Exception{
		Kind: ExceptionLatePayment, ReservationID: res.ID, CustomerID: res.CustomerID, OrderID: res.OrderID,
		Lines: exceptionLines(res), PaymentReference: tr.PaymentReference, PaidAt: tr.PaidAt,
		Code: refusal.Code, Message: refusal.Message,
	}, c.Actor)
	return Result{Err: &Error{
		Code:        CodeReservationExpired,
		Message:     fmt.Sprintf("reservation %q expired before it was confirmed: exception %s records the payment", res.ID, e.ID),
		Status:      res.Status,
		ExceptionID: e.ID,
	}}
}

// reReserve holds and confirms an expired reservation's lines again, at
// the same positions, all or none: every refusal comes before the first
// change. The positions are locked (ReservationTouches), and so are the
// documents it reads (lateTouches).
func (s *BatchState) reReserve(res *Reservation, actor string) *Error {
	if res.Status != StatusExpired {
		panic("stockd: re-reserve of a " + string(res.Status) + " reservation")
	}
	if id, held := s.orderHolder(res.OrderID); held && id != res.ID {
		return &Error{Code: CodeDuplicateOrder, Message: fmt.Sprintf("order %q is held by reservation %s", res.OrderID, id), ExistingID: id}
	}
	need := map[PositionKey]int64{}
	for _, l := range res.Lines {
		if held := l.Quantity - l.Refunded; held > 0 {
			need[l.Key()] += held
		}
	}
	var short []Shortfall
	for _, l := range res.Lines {
		k := l.Key()
		loc, ok := s.Locations[k.Location]
		if !ok || loc.Inactive {
			return Errorf(CodeLocationInactive, "location %q is inactive", k.Location)
		}
		if _, err := s.linePools(k.Pool); err != nil {
			return err
		}
		var pool Pool
		if k.Pool != PoolDefault && s.docGet(DocPool, k.Pool, &pool) && pool.Gate == PoolGateRedis {
			// The gate's Redis counts would keep the units the returner
			// gave back for the expiry while the database sold them again:
			// the next win there would be an oversell.
			return Errorf(CodeCampaignNotActive, "pool %q sells through the Redis gate: a late payment there is handled as an exception", k.Pool)
		}
		if q, ok := need[k]; ok && s.peek(k).Available() < q {
			short = append(short, Shortfall{SKU: k.SKU, Location: k.Location, Pool: k.Pool, Requested: q, Available: s.peek(k).Available()})
			delete(need, k)
		}
	}
	if len(short) > 0 {
		return &Error{Code: CodeInsufficientStock, Message: "not enough stock for every line", Lines: short}
	}
	req := s.reReserveRequest(res)
	charges, err := s.limitCheck(req)
	if err != nil {
		return err
	}
	for _, l := range res.Lines {
		held := l.Quantity - l.Refunded
		if held == 0 {
			continue
		}
		s.change(l.Key(), Counters{Reserved: held}, LedgerEntry{
			BusinessType: BusinessReReserve, BusinessID: res.ID, ReservationID: res.ID, Actor: actor,
		})
	}
	res.Status = StatusPending
	s.move(res, StatusConfirmed, BusinessConfirm, actor, "")
	s.limitRecord(res.CustomerID, res.ID, charges)
	if res.OrderID != "" {
		s.ordersNew[res.OrderID] = res.ID
	}
	return nil
}

// reReserveRequest is the reservation as the reserve that placed its lines
// asked for them: what its purchase limits count. A bundle's component
// lines count as the bundle, as they did when reserved (the bundle's
// definition is locked, lateTouches).
func (s *BatchState) reReserveRequest(res *Reservation) *Reserve {
	req := &Reserve{CustomerID: res.CustomerID, OrderID: res.OrderID, ID: res.ID, Commit: true}
	type group struct{ bundle, pool string }
	components := map[group]map[string]int64{}
	var groups []group
	for _, l := range res.Lines {
		held := l.Quantity - l.Refunded
		if held <= 0 {
			continue
		}
		if l.Bundle == "" {
			req.Lines = append(req.Lines, LineRequest{SKU: l.SKU, Quantity: held, Location: l.Location, Pool: l.Pool})
			continue
		}
		g := group{bundle: l.Bundle, pool: l.Pool}
		if components[g] == nil {
			components[g] = map[string]int64{}
			groups = append(groups, g)
		}
		components[g][l.SKU] += held
	}
	for _, g := range groups {
		var b Bundle
		if !s.docGet(DocBundle, g.bundle, &b) || len(b.Components) == 0 {
			continue
		}
		first := b.Components[0]
		if q := components[g][first.SKU] / first.Quantity; q > 0 {
			req.Lines = append(req.Lines, LineRequest{SKU: g.bundle, Quantity: q, Pool: g.pool})
		}
	}
	return req
}

// lateTouches adds what a late confirm of r may read: its order's holder,
// its exception, and the purchase limits (with the bundle definitions
// that say what they count) a re-reserve counts against.
func lateTouches(r *Reservation, t *Touches) {
	t.ExceptionKeys = append(t.ExceptionKeys, ExceptionKey{Kind: ExceptionLatePayment, ReservationID: r.ID})
	if r.OrderID != "" {
		t.Orders = append(t.Orders, r.OrderID)
	}
	if r.CustomerID == "" {
		return
	}
	t.Docs = append(t.Docs, DocKey{Kind: DocUsage, ID: r.CustomerID})
	for _, l := range r.Lines {
		sku := l.SKU
		if l.Bundle != "" {
			sku = l.Bundle
			t.Docs = append(t.Docs, DocKey{Kind: DocBundle, ID: l.Bundle})
		}
		t.Docs = append(t.Docs, DocKey{Kind: DocLimit, ID: LimitID(LimitScopeSKU, sku)})
		if l.Pool != PoolDefault {
			t.Docs = append(t.Docs, DocKey{Kind: DocLimit, ID: LimitID(LimitScopeCampaign, l.Pool)})
		}
	}
}

// Less orders keys by kind, then reservation.
func (k ExceptionKey) Less(o ExceptionKey) bool {
	if k.Kind != o.Kind {
		return k.Kind < o.Kind
	}
	return k.ReservationID < o.ReservationID
}
