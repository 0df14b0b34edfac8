package gate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/stockd/stockd"
)

// Gated reports the gated pool cmd's reservation names, if any. A
// reservation naming a gated pool must name it on every line.
func (g *Gate) Gated(ctx context.Context, r *stockd.Reserve) (stockd.Pool, bool, error) {
	for _, l := range r.Lines {
		if l.Pool == "" || l.Pool == stockd.PoolDefault {
			continue
		}
		p, gated, err := g.Pool(ctx, l.Pool)
		if err != nil || gated {
			return p, gated, err
		}
	}
	return stockd.Pool{}, false, nil
}

// entryLine is a line of a win as the stream carries it.
type entryLine struct {
	SKU      string `json:"sku"`
	Location string `json:"location"`
	Quantity int64  `json:"quantity"`
}

// Reserve decides a normalized reservation of the gated pool through the
// script. Err holds the domain's refusal; the error is only for a caller's
// context ending.
func (g *Gate) Reserve(ctx context.Context, cmd stockd.Command, pool stockd.Pool) (stockd.Result, error) {
	r := cmd.Op.(*stockd.Reserve)
	if err := gateable(r, pool, g.cfg.Now()); err != nil {
		return stockd.Result{Err: err}, nil
	}
	for attempt := 0; ; attempt++ {
		res, missing, err := g.take(ctx, cmd, pool.ID)
		if err != nil {
			if ctx.Err() != nil {
				return stockd.Result{}, ctx.Err()
			}
			return g.unavailable(err), nil
		}
		if !missing {
			return res, nil
		}
		// -1: a stock key is missing (never preheated, or lost). Never a
		// success: the database refills it, then the script runs again.
		if attempt >= refillAttemptsMax {
			return stockd.Result{Err: stockd.Errorf(stockd.CodeInsufficientStock, "pool %q holds none of these lines' SKUs at their locations", pool.ID)}, nil
		}
		if err := g.Refill(ctx, pool.ID); err != nil {
			if ctx.Err() != nil {
				return stockd.Result{}, ctx.Err()
			}
			return g.unavailable(err), nil
		}
	}
}

// gateable refuses what the gate cannot decide: it holds one number per
// position of one pool, so every line names that pool and a location, no
// line reserves and confirms at once, and the window is checked here.
func gateable(r *stockd.Reserve, pool stockd.Pool, now time.Time) *stockd.Error {
	if !pool.Sellable(now) {
		return stockd.Errorf(stockd.CodeCampaignNotActive, "pool %q takes no reservations now", pool.ID)
	}
	if r.Commit {
		return stockd.InvalidField("commit", "a reservation of gated pool %q is confirmed after it is persisted, not at once", pool.ID)
	}
	for _, l := range r.Lines {
		if l.Pool != pool.ID {
			return stockd.InvalidField("lines.pool", "every line of a reservation of gated pool %q must name it", pool.ID)
		}
		if l.Location == "" {
			return stockd.InvalidField("lines.location", "a line of gated pool %q must name its location", pool.ID)
		}
	}
	return nil
}

// take runs the script once; missing reports its -1.
func (g *Gate) take(ctx context.Context, cmd stockd.Command, pool string) (stockd.Result, bool, error) {
	r := cmd.Op.(*stockd.Reserve)
	now := g.cfg.Now().UTC().Truncate(time.Microsecond)
	res := stockd.Reservation{
		ID: g.cfg.NewID(), Key: cmd.IdempotencyKey, Status: stockd.StatusPending, CustomerID: r.CustomerID,
		ExpiresAt: now.Add(r.TTL), CreatedAt: now, UpdatedAt: now,
	}
	lines := make([]entryLine, 0, len(r.Lines))
	var total int64
	for _, l := range r.Lines {
		res.Lines = append(res.Lines, stockd.ReservationLine{SKU: l.SKU, Quantity: l.Quantity, Location: l.Location, Pool: l.Pool})
		lines = append(lines, entryLine{SKU: l.SKU, Location: l.Location, Quantity: l.Quantity})
		total += l.Quantity
	}
	answer, err := json.Marshal(res)
	if err != nil {
		return stockd.Result{}, false, err
	}
	linesJSON, err := json.Marshal(lines)
	if err != nil {
		return stockd.Result{}, false, err
	}
	keys := []string{
		g.key(pool, "replay:"+cmd.IdempotencyKey), g.key(pool, "paused"), g.key(pool, "closed"), g.key(pool, "limit"),
		g.key(pool, "customer:"+r.CustomerID), g.key(pool, "inflight"), g.streamKey(pool), g.key(pool, "pending"),
		g.key(pool, "shut"),
	}
	args := []any{cmd.RequestHash, answer, int64(g.cfg.ReplayTTL / time.Second), r.CustomerID, total, res.ID,
		cmd.IdempotencyKey, now.Format(time.RFC3339Nano), linesJSON, int64(r.TTL / time.Second), cmd.Actor}
	for _, l := range lines {
		keys = append(keys, g.stockKey(pool, field(l.SKU, l.Location)))
		args = append(args, field(l.SKU, l.Location), l.Quantity)
	}
	out, err := takeScript.Run(ctx, g.rdb, keys, args...).Slice()
	if err != nil {
		return stockd.Result{}, false, err
	}
	code, detail, err := scriptAnswer(out)
	if err != nil {
		return stockd.Result{}, false, err
	}
	switch code {
	case answerMissing:
		return stockd.Result{}, true, nil
	case answerTaken:
		return stockd.Result{Reservation: &res, Created: true}, false, nil
	case answerReplay:
		var stored stockd.Reservation
		if err := json.Unmarshal([]byte(detail), &stored); err != nil {
			return stockd.Result{}, false, fmt.Errorf("gate: stored answer: %w", err)
		}
		return stockd.Result{Reservation: &stored, Created: true, Replayed: true}, false, nil
	case answerInsufficient:
		return refusal(stockd.CodeInsufficientStock, "not enough stock for every line (gate, position %s)", detail), false, nil
	case answerLimit:
		return refusal(stockd.CodePurchaseLimitExceeded, "customer %q has %s units of pool %q already: the campaign's purchase limit is reached", r.CustomerID, detail, pool), false, nil
	case answerKeyReused:
		return refusal(stockd.CodeIdempotencyKeyReused, "idempotency key was used for a different request"), false, nil
	case answerPaused:
		return refusal(stockd.CodeGateUnavailable, "the gate of pool %q is paused (a preheat, a refill or the close): retry later with the same idempotency key", pool), false, nil
	case answerShut:
		return refusal(stockd.CodeCampaignNotActive, "pool %q is closed: the campaign takes no reservations", pool), false, nil
	case answerClosed:
		return refusal(stockd.CodeGateClosed, "the gate closed position %s of pool %q after a win the database refused; an operator re-preheats it", detail, pool), false, nil
	}
	return stockd.Result{}, false, fmt.Errorf("gate: script answered %d", code)
}

func refusal(code, format string, args ...any) stockd.Result {
	return stockd.Result{Err: stockd.Errorf(code, format, args...)}
}

// scriptAnswer reads the script's {code, detail}.
func scriptAnswer(out []any) (int64, string, error) {
	if len(out) != 2 {
		return 0, "", fmt.Errorf("gate: script answered %d values", len(out))
	}
	code, ok := out[0].(int64)
	if !ok {
		return 0, "", errors.New("gate: script answered no code")
	}
	switch d := out[1].(type) {
	case string:
		return code, d, nil
	case int64:
		return code, strconv.FormatInt(d, 10), nil
	}
	return code, "", nil
}

var _ = redis.Nil
