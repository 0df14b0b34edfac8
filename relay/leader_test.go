package relay_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/stockd/stockd/internal/testdb"
	"github.com/stockd/stockd/relay"
	"github.com/stockd/stockd/store"
	"github.com/stockd/stockd/store/postgres"
	"github.com/stockd/stockd/store/postgres/pgtest"
)

// leaders returns the relays that say they lead.
func leaders(rs ...*running) []*running {
	var out []*running
	for _, r := range rs {
		if r.relay.Status().State == relay.StateLeading {
			out = append(out, r)
		}
	}
	return out
}

// oneLeader waits until exactly one of rs leads, checks that it stays the
// only one for a while, and returns it with the other.
func oneLeader(t *testing.T, a, b *running) (leader, other *running) {
	t.Helper()
	eventually(t, 10*time.Second, "one relay leads", func() bool { return len(leaders(a, b)) == 1 })
	for range 10 {
		if n := len(leaders(a, b)); n != 1 {
			t.Fatalf("%d relays lead at once", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if leaders(a, b)[0] == a {
		return a, b
	}
	return b, a
}

// TestRelayTwoReplicasPostgres: two replicas, each with its own pool, on
// one PostgreSQL: one leads; when its lease's connection is cut it stops
// leading, and when the leader dies the other takes over; every event
// arrives once in order.
func TestRelayTwoReplicasPostgres(t *testing.T) {
	url := natsURL(t)
	dbURL := pgtest.NewDatabaseURL(t) // skips without PostgreSQL
	open := func() store.Store {
		s, err := postgres.Open(context.Background(), dbURL, postgres.Config{})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = s.Close() })
		if err := s.Migrate(context.Background()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	storeA, storeB := open(), open()
	tg := newTarget(t, url)
	p := newProducer(t, storeA)
	p.receipts(3, 1000)
	a, b := start(t, tg.config(storeA)), start(t, tg.config(storeB))
	leader, _ := oneLeader(t, a, b)
	eventually(t, 30*time.Second, "leader publishes", func() bool { return leader.relay.Status().Cursor >= 500 })

	// Cut the leader's lease connection from the database's side: it must
	// notice at its next cursor write and stop leading.
	poolConfig, err := pgxpool.ParseConfig(dbURL) // the URL carries pool parameters
	if err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.ConnectConfig(context.Background(), poolConfig.ConnConfig)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var cut int
	if err := conn.QueryRow(context.Background(), `
SELECT count(pg_terminate_backend(pid)) FROM pg_locks
WHERE locktype = 'advisory' AND granted AND classid = $1::oid
  AND objid = hashtext(current_schema() || '.' || $2)::oid`, int64(0x72656c61), "nats:"+tg.stream).Scan(&cut); err != nil {
		t.Fatal(err)
	}
	if cut != 1 {
		t.Fatalf("terminated %d lease holders; want 1", cut)
	}
	eventually(t, 10*time.Second, "the cut leader stops leading", func() bool { return leader.relay.Status().State != relay.StateLeading })
	leader, other := oneLeader(t, a, b)

	// The leader dies; the other replica takes over and finishes.
	leader.stop()
	eventually(t, 10*time.Second, "the other replica takes over", func() bool { return other.relay.Status().State == relay.StateLeading })
	if err := p.wait(); err != nil {
		t.Fatal(err)
	}
	caughtUp(t, storeA, other.relay, 60*time.Second)
	checkDelivered(t, storeA, tg)
}

// TestRelayTwoInOneProcess: on either database two relays of one name in
// one process (on SQLite the only way to share a file) take turns: one
// leads, the other takes over when it stops.
func TestRelayTwoInOneProcess(t *testing.T) {
	url := natsURL(t)
	testdb.Each(t, func(t *testing.T, b testdb.Backend) {
		s := b.New(t)
		tg := newTarget(t, url)
		p := newProducer(t, s)
		p.receipts(2, 500)
		one, two := start(t, tg.config(s)), start(t, tg.config(s))
		leader, other := oneLeader(t, one, two)
		eventually(t, 30*time.Second, "leader publishes", func() bool { return leader.relay.Status().Cursor >= 200 })
		leader.stop()
		eventually(t, 10*time.Second, "the other takes over", func() bool { return other.relay.Status().State == relay.StateLeading })
		if err := p.wait(); err != nil {
			t.Fatal(err)
		}
		caughtUp(t, s, other.relay, 60*time.Second)
		checkDelivered(t, s, tg)
	})
}
