package main

import (
	"context"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// Statuses an imported reservation may have: the others (released,
// expired, fulfilled) hold no stock and have nothing to import.
const (
	importPending   = "pending"
	importConfirmed = "confirmed"
)

// reservationRows gathers the rows of one key.
type reservationRows struct {
	key, status, expiresAt, customer string
	first                            int
	lines                            []stockd.LineRequest
	fields                           []string
}

// planReservations: key,sku,location,pool,quantity,status,expires_at,customer_id.
// Rows sharing a key are the lines of one reservation; they must agree on
// status, deadline and customer. A pending hold keeps its deadline (it
// must lie ahead, within the longest hold stockd gives); a confirmed order
// is reserved and confirmed in one step. The key column becomes the
// idempotency key, so a rerun, even of an edited file, reserves once.
//
// Seed 003 §6: a migration that moved only the available quantity, not
// what open orders held, saw each of those orders add its stock back when
// cancelled: stock out of thin air. Imported as reservations, their
// cancellations release what was really held.
func planReservations(ctx context.Context, s store.Store, f csvFile, now time.Time, bad *rowErrors) (importPlan, error) {
	c, err := newCatalogue(ctx, s)
	if err != nil {
		return importPlan{}, err
	}
	var order []string
	byKey := map[string]*reservationRows{}
	for _, r := range f.rows {
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
		line := stockd.LineRequest{SKU: sku, Quantity: q, Location: location, Pool: pool}
		k := stockd.PositionKey{SKU: sku, Location: location, Pool: pool}
		if err := stockd.NormalizeKey(&k); err != nil {
			bad.add(r.line, "%s", err.Message)
			continue
		}
		if location == "" {
			k.Location = stockd.LocationDefault
		}
		if err := c.checkPosition(ctx, r.line, k, bad); err != nil {
			return importPlan{}, err
		}
		g.lines = append(g.lines, line)
		g.fields = append(g.fields, r.fields...)
	}
	p := importPlan{what: "reservations"}
	for _, key := range order {
		g := byKey[key]
		reserve := &stockd.Reserve{Lines: g.lines, CustomerID: g.customer}
		switch g.status {
		case importConfirmed:
			reserve.Commit = true
		case importPending:
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
		cmd := rowCommand(reserve, "reservation", f, g.first, "import-reservation:"+key, g.fields...)
		if !normalized(cmd, g.first, bad) {
			continue
		}
		p.commands = append(p.commands, cmd)
		p.lines = append(p.lines, g.first)
	}
	return p, nil
}
