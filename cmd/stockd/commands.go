package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/stockd/stockd/audit"
	"github.com/stockd/stockd/store/storeurl"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func newRootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "stockd",
		Short:         "A stock ledger and reservation service that never oversells",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newServeCommand(), newMigrateCommand(), newVerifyCommand(), newVersionCommand())
	root.AddCommand(newKeysCommand(), newReplenishCommand(), newImportCommand(), newExportCommand())
	root.AddCommand(newReconcileCommand(), newLedgerCommand())
	return root
}

func newServeCommand() *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Run the HTTP service (migrates the database first)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			logger, closeLog, err := cfg.cappedLogger()
			if err != nil {
				return err
			}
			defer closeLog()
			m := &Main{Config: cfg, Logger: logger}
			if err := m.Run(cmd.Context()); err != nil {
				return err
			}
			var haltErr error
			select {
			case <-cmd.Context().Done():
				logger.Info("shutting down: draining in-flight requests")
			case err := <-m.Served():
				logger.Error("http server stopped", "err", err)
			case haltErr = <-m.Halted():
				logger.Error("shutting down: the engine halted on a broken invariant of the books; run stockd verify before restarting", "err", haltErr)
			}
			return errors.Join(haltErr, m.Close())
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	bindServeFlags(cmd.Flags(), &cfg)
	bindReconcileFlags(cmd.Flags(), &cfg.Reconcile)
	return cmd
}

func newMigrateCommand() *cobra.Command {
	var cfg Config
	cmd := &cobra.Command{
		Use:   "migrate",
		Short: "Apply the embedded database migrations",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			s, err := storeurl.Open(cmd.Context(), cfg.DatabaseURL)
			if err != nil {
				return err
			}
			defer s.Close()
			applied, err := s.MigrateApplied(cmd.Context())
			for _, name := range applied {
				fmt.Fprintln(cmd.OutOrStdout(), "applied", name)
			}
			if err != nil {
				return fmt.Errorf("migrate: %w", err)
			}
			if len(applied) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "nothing to apply: up to date:", redactURL(cfg.DatabaseURL))
				return nil
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%d migrations applied: %s\n", len(applied), redactURL(cfg.DatabaseURL))
			return nil
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	return cmd
}

func newVerifyCommand() *cobra.Command {
	var cfg Config
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Recompute every position from the ledger and open reservations; report differences, change nothing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := applyEnv(cmd.Flags()); err != nil {
				return err
			}
			return runVerify(cmd.Context(), cfg.DatabaseURL, asJSON, cmd.OutOrStdout())
		},
	}
	bindDatabaseFlags(cmd.Flags(), &cfg)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func runVerify(ctx context.Context, databaseURL string, asJSON bool, out io.Writer) error {
	s, err := storeurl.OpenExisting(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer s.Close()
	rep, err := audit.Verify(ctx, s)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	if asJSON {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return fmt.Errorf("print report: %w", err)
		}
	} else {
		fmt.Fprintf(out, "positions %d, ledger entries %d, open reservations %d, differences %d\n",
			rep.Positions, rep.LedgerEntries, rep.OpenReservations, rep.Count)
		for _, d := range rep.Differences {
			fmt.Fprintf(out, "%s %s/%s/%s: snapshot %+v, expected %+v: %s\n",
				d.Check, d.Position.SKU, d.Position.Location, d.Position.Pool, d.Snapshot, d.Expected, d.Detail)
		}
	}
	if !rep.Clean() {
		return errDifferences
	}
	return nil
}

func newVersionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the commit it was built from and the Go version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			info, _ := debug.ReadBuildInfo() // nil outside a module build: versionLine copes
			fmt.Fprintln(cmd.OutOrStdout(), versionLine(version, info))
		},
	}
}

// versionLine says what was built: the version set at link time, else the
// module's (go install …@v1.2.3), the VCS commit and whether the tree had
// changes, and the Go version.
func versionLine(linked string, info *debug.BuildInfo) string {
	v, commit, goVersion := linked, "unknown", "unknown"
	if info != nil {
		goVersion = info.GoVersion
		if v == "dev" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				commit = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified {
			commit += " (modified)"
		}
	}
	return fmt.Sprintf("stockd %s, commit %s, %s", v, commit, goVersion)
}

// redactURL hides a password in a database URL before it is logged.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparseable url)"
	}
	return u.Redacted()
}
