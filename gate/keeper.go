package gate

import (
	"context"
	"fmt"
	"time"

	"github.com/stockd/stockd"
)

// keeperInterval paces the keeper: the lateness of an automatic preheat
// and of a second shut.
const keeperInterval = 5 * time.Second

// keeperPassTimeout bounds one pass of the keeper.
const keeperPassTimeout = time.Minute

// AutoPreheatKeyPrefix starts the idempotency key of a campaign's
// automatic preheat: one key per campaign, so that the engine applies it
// once across replicas and every other replica's attempt is a replay,
// which writes nothing to Redis.
const AutoPreheatKeyPrefix = "gate-auto-preheat:"

// Keeper runs KeepOnce every few seconds until ctx ends. Every replica may
// run it: what it does is idempotent.
func (g *Gate) Keeper(ctx context.Context) {
	t := time.NewTicker(keeperInterval)
	defer t.Stop()
	for {
		pass, cancel := context.WithTimeout(ctx, keeperPassTimeout)
		if err := g.KeepOnce(pass); err != nil && ctx.Err() == nil {
			g.log.Warn("gate: keeper", "err", err)
		}
		cancel()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// KeepOnce shuts the gate of every closed campaign whose shut is missing
// (the close's own shut failed, or Redis lost it), and preheats every
// gated campaign inside its preheat lead that was never preheated. It
// goes on past a campaign that fails and returns the first failure.
func (g *Gate) KeepOnce(ctx context.Context) error {
	pools, err := g.gatedPoolDocs(ctx)
	if err != nil {
		return err
	}
	var first error
	note := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	now := g.cfg.Now()
	for _, p := range pools {
		switch {
		case p.ClosedAt != nil:
			n, err := g.rdb.Exists(ctx, g.key(p.ID, "shut")).Result()
			if err != nil {
				g.metrics.returnFailures.WithLabelValues(stepShut).Inc()
				note(fmt.Errorf("%w: shut of %s: %w", ErrUnavailable, p.ID, err))
				continue
			}
			if n == 0 {
				g.log.Warn("gate: shutting a closed campaign whose gate was open", "pool", p.ID)
				note(g.Shut(ctx, p.ID))
			}
		case p.PreheatDue(now):
			note(g.autoPreheat(ctx, p.ID))
		}
	}
	return first
}

func (g *Gate) autoPreheat(ctx context.Context, pool string) error {
	var st stockd.GateState
	if _, err := document(ctx, g.cfg.Store, stockd.DocGate, pool, &st); err != nil {
		return err
	}
	if !st.PreheatedAt.IsZero() {
		return nil
	}
	cmd := stockd.Command{Op: &stockd.GatePreheat{Pool: pool}, IdempotencyKey: AutoPreheatKeyPrefix + pool,
		RequestHash: AutoPreheatKeyPrefix + pool, Actor: "gate"}
	if verr := cmd.Normalize(); verr != nil {
		return fmt.Errorf("gate: automatic preheat of %s: %s", pool, verr.Message)
	}
	res, err := g.Preheat(ctx, cmd)
	if err != nil {
		return err
	}
	if res.Err != nil {
		return fmt.Errorf("gate: automatic preheat of %s: %s: %s", pool, res.Err.Code, res.Err.Message)
	}
	if !res.Replayed {
		g.log.Info("gate: preheated inside the campaign's lead", "pool", pool)
	}
	return nil
}
