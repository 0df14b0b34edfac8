package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/storeurl"
)

// keysAuditDetail marks the audit events of key changes made here rather
// than through the API (which records the acting key).
const keysAuditDetail = "command line"

// newKeysCommand is `stockd keys`: API keys are managed straight in the
// database, so that the first key exists before any server will listen
// beyond loopback.
func newKeysCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys",
		Short: "Create, list and revoke API keys (in the database; a running server sees changes within 5 seconds)",
	}
	cmd.AddCommand(newKeysCreateCommand(), newKeysListCommand(), newKeysRevokeCommand())
	return cmd
}

func newKeysCreateCommand() *cobra.Command {
	var cfg Config
	var name string
	var scopes []string
	cmd := &cobra.Command{
		Use:   "create --name NAME --scopes read,reserve,...",
		Short: "Create a key and print its secret, once (scopes: read, reserve, stock, approve, admin)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return withMigratedStore(cmd.Context(), cfg.DatabaseURL, func(s store.Store) error {
				return createKey(cmd.Context(), s, name, scopes, cmd.OutOrStdout(), cmd.ErrOrStderr())
			})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	cmd.Flags().StringVar(&name, "name", "", "a name for humans, e.g. the service that holds the key (required)")
	cmd.Flags().StringSliceVar(&scopes, "scopes", nil, "comma-separated scopes: read, reserve, stock, approve, admin (required)")
	return cmd
}

// createKey stores a new key and prints its secret alone on stdout, so that
// a script can capture it; what to do with it goes to stderr.
func createKey(ctx context.Context, s store.Store, name string, scopes []string, out, notes io.Writer) error {
	now := time.Now()
	key, secret, hash, err := stockd.NewAPIKey(name, scopes, now)
	if err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	if err := s.KeyCreate(ctx, store.KeyCreateParams{Key: key, Hash: hash}); err != nil {
		return fmt.Errorf("create key: %w", err)
	}
	if err := s.AuditEventInsert(ctx, stockd.NewAuditEvent(now, "", "key_create", key.ID, stockd.AuditOutcomeDone, keysAuditDetail)); err != nil {
		return fmt.Errorf("key %s created, but its audit event was not written: %w", key.ID, err)
	}
	fmt.Fprintf(notes, "created key %s (%s) with scopes %s\n", key.ID, key.Name, joinScopes(key.Scopes))
	fmt.Fprintln(out, secret)
	fmt.Fprintln(notes, "this is the only time the key is shown: stockd keeps only its SHA-256")
	return nil
}

func newKeysListCommand() *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List every key, revoked keys included (never a secret)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return withMigratedStore(cmd.Context(), cfg.DatabaseURL, func(s store.Store) error {
				keys, err := s.KeyList(cmd.Context())
				if err != nil {
					return fmt.Errorf("list keys: %w", err)
				}
				return printKeys(cmd.OutOrStdout(), keys)
			})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	return cmd
}

func printKeys(out io.Writer, keys []stockd.APIKey) error {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tNAME\tPREFIX\tSCOPES\tCREATED\tREVOKED")
	for _, k := range keys {
		revoked := "-"
		if k.Revoked() {
			revoked = k.RevokedAt.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Name, k.Prefix, joinScopes(k.Scopes), k.CreatedAt.Format(time.RFC3339), revoked)
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("print keys: %w", err)
	}
	return nil
}

func newKeysRevokeCommand() *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key: running servers refuse it within 5 seconds",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return withMigratedStore(cmd.Context(), cfg.DatabaseURL, func(s store.Store) error {
				return revokeKey(cmd.Context(), s, args[0], cmd.OutOrStdout())
			})
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	return cmd
}

func revokeKey(ctx context.Context, s store.Store, id string, out io.Writer) error {
	now := time.Now()
	key, err := s.KeyRevoke(ctx, store.KeyRevokeParams{ID: id, At: now})
	if errors.Is(err, stockd.ErrNotFound) {
		return fmt.Errorf("no key %q (stockd keys list shows the ids)", id)
	}
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if err := s.AuditEventInsert(ctx, stockd.NewAuditEvent(now, "", "key_revoke", key.ID, stockd.AuditOutcomeDone, keysAuditDetail)); err != nil {
		return fmt.Errorf("key %s revoked, but its audit event was not written: %w", key.ID, err)
	}
	fmt.Fprintf(out, "revoked key %s (%s) at %s\n", key.ID, key.Name, key.RevokedAt.Format(time.RFC3339))
	return nil
}

// withMigratedStore opens and migrates the database (a key may be the
// first thing a new database holds), runs fn, and closes it.
func withMigratedStore(ctx context.Context, databaseURL string, fn func(store.Store) error) (err error) {
	s, err := storeurl.Open(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer func() {
		if closeErr := s.Close(); closeErr != nil {
			err = errors.Join(err, fmt.Errorf("close store: %w", closeErr))
		}
	}()
	if err := s.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return fn(s)
}

func joinScopes(scopes []stockd.Scope) string {
	names := make([]string, len(scopes))
	for i, s := range scopes {
		names[i] = string(s)
	}
	return strings.Join(names, ",")
}

// keysRequired decides how serve treats authentication: with keys in the
// database, every /v1 request needs one (even if every key is revoked
// later); without, serve refuses an address reachable from other machines
// and, on loopback, runs open and says so.
func keysRequired(ctx context.Context, s store.Store, addr string, logger *slog.Logger) (bool, error) {
	n, err := s.KeyCount(ctx)
	if err != nil {
		return false, fmt.Errorf("count api keys: %w", err)
	}
	if n > 0 {
		return true, nil
	}
	onLoopback, err := loopback(addr)
	if err != nil {
		return false, err
	}
	if !onLoopback {
		return false, fmt.Errorf("refusing to listen on %s with no API keys: anyone who reaches it could change stock; "+
			"create a key first (stockd keys create --name admin --scopes admin), or listen on loopback (127.0.0.1)", addr)
	}
	logger.Warn("no API keys exist: serving WITHOUT authentication, on loopback only; the first key (stockd keys create) turns it on", "addr", addr)
	return false, nil
}

// loopback reports whether addr (host:port) can be reached from this
// machine only. A host name other than localhost counts as reachable:
// what it resolves to can change.
func loopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("listen address %q: %w", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}
