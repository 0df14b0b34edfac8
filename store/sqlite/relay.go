package sqlite

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stockd/stockd/store"
)

// LedgerSeqMax implements store.Store.LedgerSeqMax.
func (s *Store) LedgerSeqMax(ctx context.Context) (int64, error) {
	var seq int64
	if err := s.reader.QueryRowContext(ctx, queryLedgerSeqMax).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read last ledger seq: %w", interpretError(err))
	}
	return seq, nil
}

// RelayCursorGet implements store.Store.RelayCursorGet.
func (s *Store) RelayCursorGet(ctx context.Context, name string) (int64, error) {
	var seq int64
	if err := s.reader.QueryRowContext(ctx, queryRelayCursorGet, name).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read relay cursor %q: %w", name, interpretError(err))
	}
	return seq, nil
}

// relayLeases are the leases this Store handed out. SQLite has no lock
// that outlives a transaction and dies with its process, and one process
// serves a SQLite file (its single writer), so leadership is decided
// here, in memory.
type relayLeases struct {
	mu   sync.Mutex
	held map[string]*relayLease // guarded by mu
}

// RelayLeaseTry implements store.Store.RelayLeaseTry within this process.
func (s *Store) RelayLeaseTry(ctx context.Context, name string) (store.RelayLease, error) {
	if !store.RelayNameValid(name) {
		return nil, fmt.Errorf("relay name %q: want 1-64 printable ASCII characters", name)
	}
	s.relays.mu.Lock()
	defer s.relays.mu.Unlock()
	if _, ok := s.relays.held[name]; ok {
		return nil, fmt.Errorf("relay %q: %w", name, store.ErrLeaseHeld)
	}
	if s.relays.held == nil {
		s.relays.held = map[string]*relayLease{}
	}
	l := &relayLease{store: s, name: name}
	s.relays.held[name] = l
	return l, nil
}

type relayLease struct {
	store *Store
	name  string
}

// holds reports whether l is still the lease of its name.
func (l *relayLease) holds() error {
	l.store.relays.mu.Lock()
	defer l.store.relays.mu.Unlock()
	if l.store.relays.held[l.name] != l {
		return fmt.Errorf("relay %q: %w", l.name, store.ErrLeaseLost)
	}
	return nil
}

func (l *relayLease) Cursor(ctx context.Context) (int64, error) {
	if err := l.holds(); err != nil {
		return 0, err
	}
	var seq int64
	if err := l.store.writer.QueryRowContext(ctx, queryRelayCursorGet, l.name).Scan(&seq); err != nil {
		return 0, fmt.Errorf("read relay cursor %q: %w", l.name, interpretError(err))
	}
	return seq, nil
}

func (l *relayLease) CursorAdvance(ctx context.Context, seq int64, at time.Time) error {
	if err := l.holds(); err != nil {
		return err
	}
	if _, err := l.store.writer.ExecContext(ctx, queryRelayCursorAdvance, l.name, seq, unixMicros(at)); err != nil {
		return fmt.Errorf("advance relay cursor %q: %w", l.name, interpretError(err))
	}
	return nil
}

func (l *relayLease) Check(ctx context.Context) error { return l.holds() }

func (l *relayLease) Release(ctx context.Context) error {
	l.store.relays.mu.Lock()
	defer l.store.relays.mu.Unlock()
	if l.store.relays.held[l.name] == l {
		delete(l.store.relays.held, l.name)
	}
	return nil
}
