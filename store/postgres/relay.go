package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stockd/stockd/store"
)

// LedgerSeqMax implements store.Store.LedgerSeqMax.
func (s *Store) LedgerSeqMax(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.pool.QueryRow(ctx, queryLedgerSeqMax).Scan(&seq); err != nil {
		return 0, fmt.Errorf("postgres: read last ledger seq: %w", interpretError(err))
	}
	return seq, nil
}

// RelayCursorGet implements store.Store.RelayCursorGet.
func (s *Store) RelayCursorGet(ctx context.Context, name string) (int64, error) {
	var seq int64
	if err := s.pool.QueryRow(ctx, queryRelayCursorGet, name).Scan(&seq); err != nil {
		return 0, fmt.Errorf("postgres: read relay cursor %q: %w", name, interpretError(err))
	}
	return seq, nil
}

// RelayLeaseTry takes a session advisory lock on a connection of its own,
// outside the pool: the lock lives exactly as long as that session, so a
// process that dies or loses its connection loses leadership with it, and
// the database hands it to the next replica that asks.
func (s *Store) RelayLeaseTry(ctx context.Context, name string) (store.RelayLease, error) {
	if !store.RelayNameValid(name) {
		return nil, fmt.Errorf("postgres: relay name %q: want 1-64 printable ASCII characters", name)
	}
	cfg := s.pool.Config().ConnConfig.Copy()
	// The server probes this session's socket, so that a relay cut off
	// by the network loses the lock in about 25 seconds rather than after
	// the kernel's default of two hours, and a standby can take over.
	if cfg.RuntimeParams == nil {
		cfg.RuntimeParams = map[string]string{}
	}
	for k, v := range map[string]string{"tcp_keepalives_idle": "10", "tcp_keepalives_interval": "5", "tcp_keepalives_count": "3"} {
		cfg.RuntimeParams[k] = v
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect for relay lease: %w", interpretError(err))
	}
	var locked bool
	if err := conn.QueryRow(ctx, queryRelayLockTry, relayLockClass, name).Scan(&locked); err != nil {
		return nil, errors.Join(fmt.Errorf("postgres: take relay lease %q: %w", name, interpretError(err)), conn.Close(ctx))
	}
	if !locked {
		if err := conn.Close(ctx); err != nil {
			return nil, fmt.Errorf("postgres: close relay lease connection: %w", err)
		}
		return nil, fmt.Errorf("postgres: relay %q: %w", name, store.ErrLeaseHeld)
	}
	return &relayLease{conn: conn, name: name}, nil
}

// relayLease holds the lock on conn. Any failure of conn ends the lease:
// whatever happened to the session, the lock may be gone with it.
type relayLease struct {
	name string

	mu   sync.Mutex
	conn *pgx.Conn // nil once lost or released; guarded by mu
}

// use runs fn on the lease's connection. Lock should not be held.
func (l *relayLease) use(ctx context.Context, what string, fn func(*pgx.Conn) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return fmt.Errorf("postgres: relay %q: %s: %w", l.name, what, store.ErrLeaseLost)
	}
	if err := fn(l.conn); err != nil {
		// Closed without waiting: the session may already be gone.
		closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = l.conn.Close(closeCtx) //nolint:errcheck // the lease is lost either way
		l.conn = nil
		return fmt.Errorf("postgres: relay %q: %s: %w: %w", l.name, what, store.ErrLeaseLost, interpretError(err))
	}
	return nil
}

func (l *relayLease) Cursor(ctx context.Context) (int64, error) {
	var seq int64
	err := l.use(ctx, "read cursor", func(c *pgx.Conn) error {
		return c.QueryRow(ctx, queryRelayCursorGet, l.name).Scan(&seq)
	})
	return seq, err
}

func (l *relayLease) CursorAdvance(ctx context.Context, seq int64, at time.Time) error {
	return l.use(ctx, "advance cursor", func(c *pgx.Conn) error {
		_, err := c.Exec(ctx, queryRelayCursorAdvance, l.name, seq, at.UTC())
		return err
	})
}

func (l *relayLease) Check(ctx context.Context) error {
	return l.use(ctx, "check", func(c *pgx.Conn) error { return c.Ping(ctx) })
}

// Release unlocks and closes the connection; closing alone would release
// the lock too, the unlock only makes it prompt when the close is slow.
func (l *relayLease) Release(ctx context.Context) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.conn == nil {
		return nil
	}
	conn := l.conn
	l.conn = nil
	_, unlockErr := conn.Exec(ctx, queryRelayUnlock, relayLockClass, l.name)
	if err := errors.Join(unlockErr, conn.Close(ctx)); err != nil {
		return fmt.Errorf("postgres: release relay lease %q: %w", l.name, err)
	}
	return nil
}
