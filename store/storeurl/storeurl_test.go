package storeurl

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		url     string
		want    location
		wantErr string // a part of the refusal, "" for none
	}{
		{url: "postgres://u@db:5432/stock?sslmode=disable", want: location{backendPostgres, "postgres://u@db:5432/stock?sslmode=disable"}},
		{url: "postgresql://u@db/stock", want: location{backendPostgres, "postgresql://u@db/stock"}},
		{url: "sqlite://stockd.db", want: location{backendSQLite, "stockd.db"}},
		{url: "sqlite:///var/lib/stockd/stockd.db", want: location{backendSQLite, "/var/lib/stockd/stockd.db"}},

		{url: "", wantErr: `database url "": want postgres://… or sqlite://PATH`},
		{url: "mysql://u@db/stock", wantErr: "want postgres://… or sqlite://PATH"},
		{url: "stockd.db", wantErr: "want postgres://… or sqlite://PATH"},
		{url: "POSTGRES://u@db/stock", wantErr: "want postgres://… or sqlite://PATH"},
		{url: "sqlite://", wantErr: "empty path"},
		{url: "sqlite://:memory:", wantErr: "only a plain file path"},
		{url: "sqlite://file:stockd.db", wantErr: "only a plain file path"},
		{url: "sqlite://stockd.db?mode=ro", wantErr: "must not contain '?' or '#'"},
	}
	for _, tt := range tests {
		got, err := parse(tt.url)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("parse(%q) = %+v, %v; want an error with %q", tt.url, got, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("parse(%q) = %+v, %v; want %+v", tt.url, got, err, tt.want)
		}
	}
}

// TestOpenRefusesBeforeOpening: a refused URL opens nothing, and its error
// is parse's, not wrapped as a failure to open.
func TestOpenRefusesBeforeOpening(t *testing.T) {
	for _, url := range []string{"mysql://u@db/stock", "sqlite://:memory:"} {
		s, err := Open(context.Background(), url)
		if err == nil {
			s.Close()
			t.Fatalf("Open(%q) succeeded, want a refusal", url)
		}
		if strings.HasPrefix(err.Error(), "open ") {
			t.Errorf("Open(%q) = %v, want the URL's refusal, not an open failure", url, err)
		}
	}
}

func TestOpenSQLite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "stockd.db")
	s, err := Open(context.Background(), "sqlite://"+path)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
}

func TestIsPostgresAndIsSQLite(t *testing.T) {
	for _, tt := range []struct {
		url              string
		postgres, sqlite bool
	}{
		{"postgres://db/x", true, false},
		{"postgresql://db/x", true, false},
		{"sqlite://x.db", false, true},
		{"sqlite://", false, true}, // the scheme, though Open refuses the empty path
		{"redis://db", false, false},
	} {
		if got := IsPostgres(tt.url); got != tt.postgres {
			t.Errorf("IsPostgres(%q) = %v, want %v", tt.url, got, tt.postgres)
		}
		if got := IsSQLite(tt.url); got != tt.sqlite {
			t.Errorf("IsSQLite(%q) = %v, want %v", tt.url, got, tt.sqlite)
		}
	}
}
