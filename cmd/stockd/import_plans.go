package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

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
func (c *catalogue) checkPosition(ctx context.Context, line int, k stockd.PositionKey, bad *rowErrors) error {
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
func normalized(cmd stockd.Command, line int, bad *rowErrors) bool {
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

// planSKUs: sku,name,unit.
func planSKUs(ctx context.Context, s store.Store, f csvFile, _ time.Time, bad *rowErrors) (importPlan, error) {
	c, err := newCatalogue(ctx, s)
	if err != nil {
		return importPlan{}, err
	}
	p := importPlan{what: "skus"}
	seen := map[string]int{}
	for _, r := range f.rows {
		id, name, unit := r.fields[0], r.fields[1], r.fields[2]
		if first, dup := seen[id]; dup {
			bad.add(r.line, "sku %s again (first on line %d)", id, first)
			continue
		}
		seen[id] = r.line
		cmd := rowCommand(&stockd.SKUCreate{SKU: stockd.SKU{ID: id, Name: name, Unit: unit}}, "sku", f, r.line, "", r.fields...)
		if !normalized(cmd, r.line, bad) {
			continue
		}
		want := cmd.Op.(*stockd.SKUCreate).SKU
		existing, err := c.sku(ctx, id)
		if err != nil {
			return importPlan{}, err
		}
		if existing != nil && (existing.Name != want.Name || existing.Unit != want.Unit) {
			bad.add(r.line, "sku %s exists as %q (%s), not %q (%s)", id, existing.Name, existing.Unit, want.Name, want.Unit)
			continue
		}
		p.commands = append(p.commands, cmd)
		p.lines = append(p.lines, r.line)
	}
	return p, nil
}

// openingBalanceReference marks receipts imported without a reference of
// their own.
const openingBalanceReference = "opening-balance"

// planStock: sku,location,pool,quantity,reference.
func planStock(ctx context.Context, s store.Store, f csvFile, _ time.Time, bad *rowErrors) (importPlan, error) {
	c, err := newCatalogue(ctx, s)
	if err != nil {
		return importPlan{}, err
	}
	p := importPlan{what: "receipts"}
	for _, r := range f.rows {
		q, err := parseQuantity(r.fields[3])
		if err != nil {
			bad.add(r.line, "%v", err)
			continue
		}
		reference := r.fields[4]
		if reference == "" {
			reference = openingBalanceReference
		}
		receive := &stockd.Receive{Position: stockd.PositionKey{SKU: r.fields[0], Location: r.fields[1], Pool: r.fields[2]}, Quantity: q, Reference: reference}
		cmd := rowCommand(receive, "stock", f, r.line, "", r.fields...)
		if !normalized(cmd, r.line, bad) {
			continue
		}
		if err := c.checkPosition(ctx, r.line, receive.Position, bad); err != nil {
			return importPlan{}, err
		}
		p.commands = append(p.commands, cmd)
		p.lines = append(p.lines, r.line)
	}
	return p, nil
}
