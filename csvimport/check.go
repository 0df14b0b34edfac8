package csvimport

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Plan is a checked file: what applying it sends.
type Plan struct {
	file *File
	// commands and their lines, for the kinds that go through the engine.
	commands []stockd.Command
	lines    []int
	// unchanged counts rows with nothing to do (a SKU that exists as the
	// row says).
	unchanged int
	demand    []stockd.DemandDay
	counts    []stockd.CountRow
}

// Kind is what the planned file holds.
func (p *Plan) Kind() Kind { return p.file.Kind }

// Check checks every row of f against the books as they stand at now. A
// file with any bad row is a *BadFileError naming each (the first
// LineErrorsMax); other errors are the store's.
func Check(ctx context.Context, s store.Store, f *File, now time.Time) (*Plan, error) {
	c, err := newCatalogue(ctx, s)
	if err != nil {
		return nil, err
	}
	p := &Plan{file: f}
	bad := f.bad
	bad.lines = slices.Clone(bad.lines)
	switch f.Kind {
	case KindSKUs:
		err = p.checkSKUs(ctx, c, &bad)
	case KindStock:
		err = p.checkStock(ctx, c, &bad)
	case KindReservations:
		err = p.checkReservations(ctx, c, now, &bad)
	case KindDemand:
		err = p.checkDemand(ctx, c, &bad)
	case KindCounts:
		err = p.checkCounts(ctx, c, now, &bad)
	default:
		panic(fmt.Sprintf("csvimport: unknown kind %q", f.Kind))
	}
	if err != nil {
		return nil, err
	}
	if err := bad.badFile(); err != nil {
		return nil, err
	}
	return p, nil
}

// catalogue answers whether the SKUs, locations and pools rows name exist,
// reading each once.
type catalogue struct {
	s         store.Store
	skus      map[string]*stockd.SKU
	locations map[string]bool
	pools     map[string]bool
}

func newCatalogue(ctx context.Context, s store.Store) (*catalogue, error) {
	locations, err := s.LocationList(ctx)
	if err != nil {
		return nil, fmt.Errorf("read locations: %w", err)
	}
	c := &catalogue{s: s, skus: map[string]*stockd.SKU{}, locations: map[string]bool{stockd.LocationDefault: true}, pools: map[string]bool{stockd.PoolDefault: true}}
	for _, l := range locations {
		c.locations[l.ID] = true
	}
	return c, nil
}

// sku returns the SKU, or nil when it does not exist.
func (c *catalogue) sku(ctx context.Context, id string) (*stockd.SKU, error) {
	if sku, ok := c.skus[id]; ok {
		return sku, nil
	}
	sku, err := c.s.SKUGet(ctx, id)
	switch {
	case errors.Is(err, stockd.ErrNotFound):
		c.skus[id] = nil
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read sku %s: %w", id, err)
	}
	c.skus[id] = &sku
	return &sku, nil
}

func (c *catalogue) pool(ctx context.Context, id string) (bool, error) {
	if known, ok := c.pools[id]; ok {
		return known, nil
	}
	_, err := c.s.DocumentGet(ctx, stockd.DocKey{Kind: stockd.DocPool, ID: id})
	switch {
	case errors.Is(err, stockd.ErrNotFound):
		c.pools[id] = false
	case err != nil:
		return false, fmt.Errorf("read pool %s: %w", id, err)
	default:
		c.pools[id] = true
	}
	return c.pools[id], nil
}

// checkPosition adds to bad what is wrong with a row's position: an unknown
// SKU, location or pool, or a bundle (which holds no stock of its own).
func (c *catalogue) checkPosition(ctx context.Context, line int, k stockd.PositionKey, bad *lineErrors) error {
	sku, err := c.sku(ctx, k.SKU)
	if err != nil {
		return err
	}
	switch {
	case sku == nil:
		bad.add(line, "sku %s does not exist: import skus first", k.SKU)
	case sku.Bundle:
		bad.add(line, "sku %s is a bundle: it holds no stock of its own", k.SKU)
	}
	if !c.locations[k.Location] {
		bad.add(line, "location %s does not exist", k.Location)
	}
	known, err := c.pool(ctx, k.Pool)
	if err != nil {
		return err
	}
	if !known {
		bad.add(line, "pool %s does not exist", k.Pool)
	}
	return nil
}

// normalized checks a command as the engine will, adding its problem to bad.
func normalized(cmd *stockd.Command, line int, bad *lineErrors) bool {
	if err := cmd.Normalize(); err != nil {
		bad.add(line, "%s", err.Message)
		return false
	}
	return true
}

func parseQuantity(s string) (int64, error) {
	q, err := strconv.ParseInt(s, 10, 64)
	if err != nil || q < 1 || q > stockd.QuantityMax {
		return 0, fmt.Errorf("quantity %q: want a whole number from 1 to %d", s, stockd.QuantityMax)
	}
	return q, nil
}

// Actor is the actor of the commands of an import, unless the caller
// names one (an HTTP request's API key).
const Actor = "import"

// rowCommand makes the command of a file's row. Its idempotency key is the
// file's digest and the line, or key when the file names one: the same
// whoever sends the file (never scoped to an API key), so that a file sent
// again by the command line or over HTTP, by any key, replays.
func rowCommand(op stockd.Operation, kind string, f *File, line int, key string, fields ...string) stockd.Command {
	if key == "" {
		key = fmt.Sprintf("import:%s:%s:%d", kind, f.Digest, line)
	}
	sum := sha256.Sum256([]byte(kind + "\x00" + strings.Join(fields, "\x00")))
	return stockd.Command{Op: op, IdempotencyKey: key, RequestHash: hex.EncodeToString(sum[:]), Actor: Actor}
}

func (p *Plan) add(cmd stockd.Command, line int) {
	p.commands = append(p.commands, cmd)
	p.lines = append(p.lines, line)
}

// checkSKUs: sku,name,unit. A SKU that exists as the row says is left as
// it is; one that exists otherwise is a bad row.
func (p *Plan) checkSKUs(ctx context.Context, c *catalogue, bad *lineErrors) error {
	seen := map[string]int{}
	for _, r := range p.file.rows {
		id, name, unit := r.fields[0], r.fields[1], r.fields[2]
		if first, dup := seen[id]; dup {
			bad.add(r.line, "sku %s again (first on line %d)", id, first)
			continue
		}
		seen[id] = r.line
		cmd := rowCommand(&stockd.SKUCreate{SKU: stockd.SKU{ID: id, Name: name, Unit: unit}}, "sku", p.file, r.line, "", r.fields...)
		if !normalized(&cmd, r.line, bad) {
			continue
		}
		want := cmd.Op.(*stockd.SKUCreate).SKU
		existing, err := c.sku(ctx, id)
		if err != nil {
			return err
		}
		switch {
		case existing == nil:
			p.add(cmd, r.line)
		case existing.Name != want.Name || existing.Unit != want.Unit:
			bad.add(r.line, "sku %s exists as %q (%s), not %q (%s)", id, existing.Name, existing.Unit, want.Name, want.Unit)
		default:
			p.unchanged++
		}
	}
	return nil
}

// OpeningBalanceReference starts the reference of a receipt imported
// without one of its own: opening-balance:LOCATION:POOL. References are
// unique per SKU, so the location and pool let one file open a SKU's
// balance at several places.
const OpeningBalanceReference = "opening-balance"

// checkStock: sku,location,pool,quantity,reference. Each row is a receipt
// with its reference, so that verify holds and the ledger says where the
// stock came from.
func (p *Plan) checkStock(ctx context.Context, c *catalogue, bad *lineErrors) error {
	type skuReference struct{ sku, reference string }
	seen := map[skuReference]int{}
	for _, r := range p.file.rows {
		q, err := parseQuantity(r.fields[3])
		if err != nil {
			bad.add(r.line, "%v", err)
			continue
		}
		position := stockd.PositionKey{SKU: r.fields[0], Location: r.fields[1], Pool: r.fields[2]}
		reference := r.fields[4]
		if reference == "" {
			reference = OpeningBalanceReference + ":" + cmpOr(position.Location, stockd.LocationDefault) + ":" + cmpOr(position.Pool, stockd.PoolDefault)
		}
		receive := &stockd.Receive{Position: position, Quantity: q, Reference: reference}
		cmd := rowCommand(receive, "stock", p.file, r.line, "", r.fields...)
		if !normalized(&cmd, r.line, bad) {
			continue
		}
		receive = cmd.Op.(*stockd.Receive)
		k := skuReference{receive.Position.SKU, receive.Reference}
		if first, dup := seen[k]; dup {
			bad.add(r.line, "reference %s for sku %s again (first on line %d): a reference books one receipt per SKU", k.reference, k.sku, first)
			continue
		}
		seen[k] = r.line
		if err := c.checkPosition(ctx, r.line, receive.Position, bad); err != nil {
			return err
		}
		p.add(cmd, r.line)
	}
	return nil
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// Statuses an imported reservation may have: the others (released,
// expired, fulfilled) hold no stock and have nothing to import.
const (
	statusPending   = "pending"
	statusConfirmed = "confirmed"
)

// reservationRows gathers the rows of one key.
type reservationRows struct {
	key, status, expiresAt, customer string
	first                            int
	lines                            []stockd.LineRequest
	fields                           []string
}

// checkReservations: key,sku,location,pool,quantity,status,expires_at,customer_id.
// Rows sharing a key are the lines of one reservation; they must agree on
// status, deadline and customer. A pending hold keeps its deadline (it
// must lie ahead, within the longest hold stockd gives); a confirmed order
// is reserved and confirmed in one step. The key column makes the
// idempotency key, so a rerun, even of an edited file, reserves once.
//
// Seed 003 §6: a migration that moved only the available quantity, not
// what open orders held, saw each of those orders add its stock back when
// cancelled: stock out of thin air. Imported as reservations, their
// cancellations release what was really held.
func (p *Plan) checkReservations(ctx context.Context, c *catalogue, now time.Time, bad *lineErrors) error {
	var order []string
	byKey := map[string]*reservationRows{}
	for _, r := range p.file.rows {
		key, sku, location, pool, quantity, status, expiresAt, customer := r.fields[0], r.fields[1], r.fields[2], r.fields[3], r.fields[4], r.fields[5], r.fields[6], r.fields[7]
		q, err := parseQuantity(quantity)
		if err != nil {
			bad.add(r.line, "%v", err)
			continue
		}
		g, ok := byKey[key]
		if !ok {
			g = &reservationRows{key: key, status: status, expiresAt: expiresAt, customer: customer, first: r.line}
			byKey[key] = g
			order = append(order, key)
		} else if g.status != status || g.expiresAt != expiresAt || g.customer != customer {
			bad.add(r.line, "key %s: status, expires_at and customer_id must match its first row (line %d)", key, g.first)
			continue
		}
		k := stockd.PositionKey{SKU: sku, Location: location, Pool: pool}
		if err := stockd.NormalizeKey(&k); err != nil {
			bad.add(r.line, "%s", err.Message)
			continue
		}
		if location == "" {
			k.Location = stockd.LocationDefault
		}
		if err := c.checkPosition(ctx, r.line, k, bad); err != nil {
			return err
		}
		g.lines = append(g.lines, stockd.LineRequest{SKU: sku, Quantity: q, Location: location, Pool: pool})
		g.fields = append(g.fields, r.fields...)
	}
	for _, key := range order {
		g := byKey[key]
		reserve := &stockd.Reserve{Lines: g.lines, CustomerID: g.customer}
		switch g.status {
		case statusConfirmed:
			reserve.Commit = true
		case statusPending:
			deadline, err := time.Parse(time.RFC3339, g.expiresAt)
			if err != nil {
				bad.add(g.first, "expires_at %q: want RFC 3339, e.g. 2026-12-04T10:00:00Z", g.expiresAt)
				continue
			}
			ttl := deadline.Sub(now).Round(time.Second)
			if ttl < stockd.ReservationTTLMin || ttl > stockd.ReservationTTLMax {
				bad.add(g.first, "expires_at %s: a pending hold's deadline must lie from %s to %s ahead (it is %s)", g.expiresAt, stockd.ReservationTTLMin, stockd.ReservationTTLMax, ttl)
				continue
			}
			reserve.TTL = ttl
		default:
			bad.add(g.first, "status %q: want pending or confirmed", g.status)
			continue
		}
		if len(g.lines) == 0 {
			continue // every line of the key was bad, and said so
		}
		cmd := rowCommand(reserve, "reservation", p.file, g.first, "import-reservation:"+key, g.fields...)
		if !normalized(&cmd, g.first, bad) {
			continue
		}
		p.add(cmd, g.first)
	}
	return nil
}

// checkDemand: sku,date,quantity. Past daily demand, for replenishment;
// each SKU and date once.
func (p *Plan) checkDemand(ctx context.Context, c *catalogue, bad *lineErrors) error {
	firstLine := map[[2]string]int{}
	p.demand = make([]stockd.DemandDay, 0, len(p.file.rows))
	for _, r := range p.file.rows {
		q, err := strconv.ParseInt(r.fields[2], 10, 64)
		if err != nil {
			bad.add(r.line, "quantity %q: want an integer from 0 to %d", r.fields[2], stockd.QuantityMax)
			continue
		}
		day := stockd.DemandDay{SKU: r.fields[0], Date: r.fields[1], Quantity: q}
		if verr := stockd.ValidDemandDay(day); verr != nil {
			bad.add(r.line, "%s", verr.Message)
			continue
		}
		k := [2]string{day.SKU, day.Date}
		if first, ok := firstLine[k]; ok {
			bad.add(r.line, "%s on %s again (first on line %d)", day.SKU, day.Date, first)
			continue
		}
		firstLine[k] = r.line
		sku, err := c.sku(ctx, day.SKU)
		if err != nil {
			return err
		}
		if sku == nil {
			bad.add(r.line, "sku %q is unknown", day.SKU)
			continue
		}
		p.demand = append(p.demand, day)
	}
	return nil
}

// checkCounts: sku,location,counted_on_hand,counted_at. A physical count,
// compared with the ledger as of counted_at; stock is not changed.
func (p *Plan) checkCounts(ctx context.Context, c *catalogue, now time.Time, bad *lineErrors) error {
	for _, r := range p.file.rows {
		counted, err := strconv.ParseInt(r.fields[2], 10, 64)
		if err != nil {
			bad.add(r.line, "counted_on_hand %q is not an integer", r.fields[2])
			continue
		}
		at, err := time.Parse(time.RFC3339Nano, r.fields[3])
		if err != nil {
			bad.add(r.line, "counted_at %q is not an RFC 3339 time", r.fields[3])
			continue
		}
		row := stockd.CountRow{SKU: r.fields[0], Location: r.fields[1], CountedOnHand: counted, CountedAt: at}
		if verr := row.Normalize(now); verr != nil {
			bad.add(r.line, "%s: %s", verr.Field, verr.Message)
			continue
		}
		sku, err := c.sku(ctx, row.SKU)
		if err != nil {
			return err
		}
		if sku == nil {
			bad.add(r.line, "sku %q is unknown", row.SKU)
			continue
		}
		p.counts = append(p.counts, row)
	}
	return nil
}
