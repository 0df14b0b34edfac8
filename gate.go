package stockd

import (
	"slices"
	"time"
)

// Gate documents: what the Redis gate of a campaign pool (Pool.Gate) was
// given, and the wins the database refused. The database keeps them so
// that a Redis that lost its keys still finds the positions an operator
// closed, and so that every exception outlives the gate.
const (
	// DocGate (id = pool) records the last preheat and the closed
	// positions.
	DocGate = "gate"
	// DocGateException (id = reservation id) is a win the gate answered
	// that the database refused: a gate_oversell.
	DocGateException = "gate_exception"
)

const (
	KindGatePreheat   CommandKind = "gate_preheat"
	KindGateException CommandKind = "gate_exception"
)

// GateExceptionOversell is the kind of every exception record: the gate
// sold what the database would not hold.
const GateExceptionOversell = "gate_oversell"

// GateState is the DocGate document.
type GateState struct {
	Pool        string          `json:"pool"`
	PreheatedAt time.Time       `json:"preheated_at"`
	Positions   []GatePosition  `json:"positions"`
	Closed      []PoolStockItem `json:"closed"`
	Limit       int64           `json:"limit_per_customer,omitempty"`
}

// GatePosition is what one position of the pool held at the preheat.
type GatePosition struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Quantity int64  `json:"quantity"`
}

// GateException is the DocGateException document.
type GateException struct {
	ReservationID string         `json:"reservation_id"`
	Kind          string         `json:"kind"`
	Pool          string         `json:"pool"`
	Key           string         `json:"key"`
	CustomerID    string         `json:"customer_id,omitempty"`
	Lines         []GatePosition `json:"lines"`
	WonAt         time.Time      `json:"won_at"`
	Code          string         `json:"code"`
	Message       string         `json:"message"`
	RecordedAt    time.Time      `json:"recorded_at"`
	// ExceptionID names the exception record (Exception) of the win:
	// where it is handled and resolved.
	ExceptionID string `json:"exception_id,omitempty"`
}

// GatePreheat reads the available quantity of every position of a gated
// campaign pool, under the positions' locks, and records it as the gate's
// new state with no position closed. The gate writes the quantities to
// Redis after.
type GatePreheat struct {
	Pool string
}

func (g *GatePreheat) Kind() CommandKind { return KindGatePreheat }

// Touches names the pool's documents (the positions follow from its stock
// list, as for a close), the gate's, and the campaign's purchase limit.
func (g *GatePreheat) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocPool, ID: g.Pool}, DocKey{Kind: DocPoolStock, ID: g.Pool},
		DocKey{Kind: DocGate, ID: g.Pool}, DocKey{Kind: DocLimit, ID: LimitID(LimitScopeCampaign, g.Pool)})
}

func (g *GatePreheat) normalize() *Error {
	if !ValidIdentifier(g.Pool) {
		return InvalidField("pool", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	return nil
}

func (g *GatePreheat) decide(s *BatchState, c *Command) Result {
	var p Pool
	if !s.docGet(DocPool, g.Pool, &p) {
		return Result{Err: Errorf(CodeNotFound, "pool %q not found", g.Pool)}
	}
	if p.Gate != PoolGateRedis {
		return Result{Err: Errorf(CodeInvalidTransition, "pool %q has no gate", g.Pool)}
	}
	if p.ClosedAt != nil {
		return Result{Err: Errorf(CodeCampaignNotActive, "pool %q is closed", g.Pool)}
	}
	var ps PoolStock
	s.docGet(DocPoolStock, g.Pool, &ps)
	st := GateState{Pool: g.Pool, PreheatedAt: s.Now, Positions: []GatePosition{}, Closed: []PoolStockItem{}}
	for _, item := range ps.Positions {
		k := PositionKey{SKU: item.SKU, Location: item.Location, Pool: g.Pool}
		st.Positions = append(st.Positions, GatePosition{SKU: item.SKU, Location: item.Location, Quantity: s.peek(k).Available()})
	}
	var limit PurchaseLimit
	if s.docGet(DocLimit, LimitID(LimitScopeCampaign, g.Pool), &limit) {
		st.Limit = limit.MaxQuantityPerCustomer
	}
	s.docPut(DocGate, g.Pool, st)
	return Result{Object: objectOf(st)}
}

// GateExceptionRecord stores a win the database refused and closes its
// positions in the gate's state until the next preheat. Recording the
// same reservation again changes nothing.
type GateExceptionRecord struct {
	Exception GateException
}

func (g *GateExceptionRecord) Kind() CommandKind { return KindGateException }

func (g *GateExceptionRecord) Touches(t *Touches) {
	t.Docs = append(t.Docs, DocKey{Kind: DocGate, ID: g.Exception.Pool}, DocKey{Kind: DocGateException, ID: g.Exception.ReservationID})
	t.ExceptionKeys = append(t.ExceptionKeys, ExceptionKey{Kind: ExceptionGateOversell, ReservationID: g.Exception.ReservationID})
}

func (g *GateExceptionRecord) normalize() *Error {
	e := &g.Exception
	if !ValidIdentifier(e.Pool) || !ValidIdentifier(e.ReservationID) {
		return InvalidField("pool", "pool and reservation_id must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	if len(e.Lines) == 0 || len(e.Lines) > LinesPerReservationMax {
		return InvalidField("lines", "must hold 1 to %d lines", LinesPerReservationMax)
	}
	for _, l := range e.Lines {
		if !ValidIdentifier(l.SKU) || !ValidIdentifier(l.Location) {
			return InvalidField("lines", "sku and location must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
		}
	}
	if e.Key != "" && !ValidIdempotencyKey(e.Key) {
		return InvalidField("key", "must be 1-%d printable ASCII characters", IdempotencyKeyLengthMax)
	}
	if e.CustomerID != "" && !ValidIdentifier(e.CustomerID) {
		return InvalidField("customer_id", "must be 1-%d characters of [A-Za-z0-9._:-]", IdentifierLengthMax)
	}
	won, err := NormalizeTime("won_at", e.WonAt)
	if err != nil {
		return err
	}
	e.WonAt = won
	if !PlainText(e.Code) || len(e.Code) > NameLengthMax {
		e.Code = CodeInternal
	}
	// The message is the engine's refusal, kept as long as a name may be.
	if len(e.Message) > NameLengthMax || !PlainText(e.Message) {
		e.Message = e.Code
	}
	e.Kind = GateExceptionOversell
	e.ExceptionID = ""
	return nil
}

func (g *GateExceptionRecord) decide(s *BatchState, c *Command) Result {
	e := g.Exception
	var existing GateException
	if s.docGet(DocGateException, e.ReservationID, &existing) {
		return Result{Object: objectOf(existing)}
	}
	e.RecordedAt = s.Now
	won := e.WonAt
	lines := make([]ExceptionLine, 0, len(e.Lines))
	for _, l := range e.Lines {
		lines = append(lines, ExceptionLine{SKU: l.SKU, Location: l.Location, Pool: e.Pool, Quantity: l.Quantity})
	}
	rec := s.exceptionRecord(Exception{
		Kind: ExceptionGateOversell, ReservationID: e.ReservationID, CustomerID: e.CustomerID, Pool: e.Pool,
		Lines: lines, WonAt: &won, Code: e.Code, Message: e.Message,
	}, c.Actor)
	e.ExceptionID = rec.ID
	s.docPut(DocGateException, e.ReservationID, e)
	var st GateState
	if !s.docGet(DocGate, e.Pool, &st) {
		st = GateState{Pool: e.Pool, Positions: []GatePosition{}, Closed: []PoolStockItem{}}
	}
	for _, l := range e.Lines {
		item := PoolStockItem{SKU: l.SKU, Location: l.Location}
		if !slices.Contains(st.Closed, item) && len(st.Closed) < PoolPositionsMax {
			st.Closed = append(st.Closed, item)
		}
	}
	s.docPut(DocGate, e.Pool, st)
	return Result{Object: objectOf(e), Created: true}
}
