package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stockd/stockd/store/postgres/pgtest"
)

func TestExitCodes(t *testing.T) {
	for _, c := range []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errDifferences, exitDifferences},
		{fmt.Errorf("verify: %w", errDifferences), exitDifferences},
		{errors.New("open sqlite: no database file"), exitFailed},
	} {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

func TestVersionLine(t *testing.T) {
	built := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v1.2.3"},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}
	for _, c := range []struct {
		linked string
		info   *debug.BuildInfo
		want   string
	}{
		{"dev", built, "stockd v1.2.3, commit abc123 (modified), go1.26.0"},
		{"v9.9.9", built, "stockd v9.9.9, commit abc123 (modified), go1.26.0"},
		{"dev", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, "stockd dev, commit unknown, go1.26.0"},
		{"dev", nil, "stockd dev, commit unknown, unknown"},
	} {
		if got := versionLine(c.linked, c.info); got != c.want {
			t.Errorf("versionLine(%q) = %q, want %q", c.linked, got, c.want)
		}
	}
}

// TestVerifyMistypedPath: verify on a path with no database says so and
// exits 1 (could not check), and leaves no file behind; before, it created
// an empty database there and reported it clean.
func TestVerifyMistypedPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "typo.db")
	err := runVerify(t.Context(), "sqlite://"+path, false, &bytes.Buffer{})
	if err == nil || !strings.Contains(err.Error(), "no database file") || exitCode(err) != exitFailed {
		t.Fatalf("verify on a missing file: %v (exit %d), want no database file and exit 1", err, exitCode(err))
	}
	if _, statErr := os.Stat(path); !errors.Is(statErr, os.ErrNotExist) {
		t.Fatalf("verify left a file at %s: %v", path, statErr)
	}
}

// TestSQLiteMissingDirectory: SQLite's own error for a missing directory
// names neither; ours names the directory and how to make it.
func TestSQLiteMissingDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "there")
	root := newRootCommand()
	root.SetArgs([]string{"migrate", "--database-url", "sqlite://" + filepath.Join(dir, "stockd.db")})
	root.SetOut(&bytes.Buffer{})
	err := root.ExecuteContext(t.Context())
	if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "mkdir -p") {
		t.Fatalf("migrate into a missing directory: %v, want the directory named and mkdir -p", err)
	}
}

// TestPostgresMissingDatabase: a database that does not exist says how to
// create it.
func TestPostgresMissingDatabase(t *testing.T) {
	base := pgtest.NewDatabaseURL(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/stockd_no_such_database"
	root := newRootCommand()
	root.SetArgs([]string{"migrate", "--database-url", u.String()})
	root.SetOut(&bytes.Buffer{})
	err = root.ExecuteContext(t.Context())
	if err == nil || !strings.Contains(err.Error(), `database "stockd_no_such_database" does not exist`) || !strings.Contains(err.Error(), "createdb") {
		t.Fatalf("migrate on a missing database: %v, want it named and createdb", err)
	}
}

// TestMigrateSaysWhatItApplied: a fresh database gets every migration,
// each named; the next run says there is nothing to apply.
func TestMigrateSaysWhatItApplied(t *testing.T) {
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "stockd.db")
	run := func() string {
		var out bytes.Buffer
		root := newRootCommand()
		root.SetArgs([]string{"migrate", "--database-url", dbURL})
		root.SetOut(&out)
		if err := root.ExecuteContext(t.Context()); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if first := run(); !strings.Contains(first, "applied 0001_books.sql") || !strings.Contains(first, "migrations applied") {
		t.Fatalf("first migrate said %q, want each migration named", first)
	}
	if second := run(); !strings.Contains(second, "nothing to apply") || strings.Contains(second, "applied 0001") {
		t.Fatalf("second migrate said %q, want nothing to apply", second)
	}
}
