package postgres

import (
	"errors"
	"testing"
	"time"

	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/postgres/pgtest"
)

// TestHealthWriteOnAStandby: a database that answers reads but refuses
// writes (a standby after a failover, a read-only switch) must fail the
// health probe's write as unavailable, while reads go on.
func TestHealthWriteOnAStandby(t *testing.T) {
	url := pgtest.NewDatabaseURL(t)
	writable := openTestStore(t, url)
	if err := writable.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := writable.HealthWrite(t.Context(), time.Now()); err != nil {
		t.Fatalf("health write on the primary: %v", err)
	}
	standby := openTestStore(t, url+"&default_transaction_read_only=on")
	if _, err := standby.LocationList(t.Context()); err != nil {
		t.Fatalf("read on the read-only database: %v", err)
	}
	err := standby.HealthWrite(t.Context(), time.Now())
	if !errors.Is(err, store.ErrUnavailable) {
		t.Fatalf("health write on the read-only database: %v, want store.ErrUnavailable", err)
	}
}
