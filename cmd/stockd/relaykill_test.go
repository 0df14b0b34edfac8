package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/store/storeurl"
)

// childServeArgs, when set, makes this test binary run `stockd serve` with
// these arguments (separated by newlines) instead of the tests: the parent
// test kills it with SIGKILL, as a crash would.
const childServeArgs = "STOCKD_TEST_CHILD_SERVE_ARGS"

// TestServeKilledMidRun: a serve process killed (SIGKILL) while its relay
// works through thousands of events, then started again: every event
// arrives, in seq order, a repeat only with the same id.
func TestServeKilledMidRun(t *testing.T) {
	if args := os.Getenv(childServeArgs); args != "" {
		root := newRootCommand()
		root.SetArgs(strings.Split(args, "\n"))
		if err := root.ExecuteContext(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "child serve:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	natsURL := os.Getenv("STOCKD_TEST_NATS_URL")
	if natsURL == "" {
		t.Skip("STOCKD_TEST_NATS_URL is unset: set it to a NATS server with JetStream (nats://127.0.0.1:4222) to run the relay tests")
	}
	suffix := strconv.FormatInt(time.Now().UnixNano(), 36)
	stream, env := "TEST_KILL_"+suffix, "kill"+suffix
	dbURL := "sqlite://" + filepath.Join(t.TempDir(), "stockd.db")
	last := backlog(t, dbURL, 6000)

	js := jetStream(t, natsURL)
	t.Cleanup(func() { _ = js.DeleteStream(context.Background(), stream) })
	args := []string{"serve", "--database-url", dbURL, "--nats-url", natsURL, "--nats-stream", stream, "--environment", env}

	first := startChild(t, args)
	var killedAt int64
	for deadline := time.Now().Add(30 * time.Second); ; {
		if r := first.relay(); r != nil && r.Cursor >= 1000 {
			killedAt = r.Cursor
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("relay did not reach 1000 events: %+v", first.relay())
		}
		time.Sleep(2 * time.Millisecond)
	}
	first.kill()
	if killedAt >= last {
		t.Fatalf("killed at cursor %d of %d: not mid-run", killedAt, last)
	}

	second := startChild(t, args)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if r := second.relay(); r != nil && r.Cursor == last && r.LagEvents == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("second serve's relay did not catch up to %d: %+v", last, second.relay())
		}
		time.Sleep(20 * time.Millisecond)
	}
	second.kill()

	// Every seq 1..last (SQLite's seq has no gaps), first copies in
	// order, each copy with its seq's id.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cons, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	next, copies := int64(1), 0
	for next <= last {
		m, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
		if err != nil {
			t.Fatalf("stream ends before seq %d of %d: %v", next, last, err)
		}
		var e httpapi.LedgerEntry
		if err := json.Unmarshal(m.Data(), &e); err != nil {
			t.Fatal(err)
		}
		if id := m.Headers().Get("Nats-Msg-Id"); id != fmt.Sprintf("%s:%d", env, e.Seq) {
			t.Fatalf("seq %d carries id %q", e.Seq, id)
		}
		switch {
		case e.Seq == next:
			next++
		case e.Seq < next:
			copies++ // a repeat, with its id
		default:
			t.Fatalf("seq %d arrived before %d", e.Seq, next)
		}
	}
	t.Logf("killed at cursor %d of %d; %d repeats stored", killedAt, last, copies)
}

// backlog books n receipts into the database at dbURL through the engine
// and returns the ledger's last seq.
func backlog(t *testing.T, dbURL string, n int) int64 {
	t.Helper()
	ctx := context.Background()
	s, err := storeurl.Open(ctx, dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	e := engine.New(engine.Config{Store: s})
	defer e.Close()
	skus := []string{"tea.green", "coffee", "cup"}
	submit := func(key string, op stockd.Operation) error {
		res, err := e.Submit(ctx, stockd.Command{Op: op, IdempotencyKey: key, RequestHash: key})
		if err == nil && res.Err != nil {
			err = res.Err
		}
		return err
	}
	for _, sku := range skus {
		if err := submit("sku-"+sku, &stockd.SKUCreate{SKU: stockd.SKU{ID: sku, Name: sku}}); err != nil {
			t.Fatal(err)
		}
	}
	errs := make(chan error, n)
	for i := range n {
		go func() {
			errs <- submit(fmt.Sprintf("r-%d", i), &stockd.Receive{
				Position: stockd.PositionKey{SKU: skus[i%len(skus)], Location: "default"}, Quantity: 1,
			})
		}()
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	last, err := s.LedgerSeqMax(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return last
}

func jetStream(t *testing.T, url string) jetstream.JetStream {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// child is a serve process run from this test binary.
type child struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
}

func startChild(t *testing.T, args []string) *child {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	args = append(args, "--addr", addr, "--log-level", "warn")
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeKilledMidRun$")
	cmd.Env = append(os.Environ(), childServeArgs+"="+strings.Join(args, "\n"))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{t: t, cmd: cmd, base: "http://" + addr}
	t.Cleanup(c.kill)
	for deadline := time.Now().Add(30 * time.Second); c.relay() == nil; {
		if time.Now().After(deadline) {
			t.Fatal("child serve did not answer /healthz")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return c
}

// relay is the child's /healthz relay part, nil while it does not answer.
func (c *child) relay() *httpapi.RelayHealth {
	resp, err := http.Get(c.base + "/healthz")
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var h httpapi.Health
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil {
		return nil
	}
	return h.Relay
}

// kill ends the child with SIGKILL: no shutdown, no cursor write.
func (c *child) kill() {
	if c.cmd == nil {
		return
	}
	_ = c.cmd.Process.Kill() //nolint:errcheck // it may have exited
	_ = c.cmd.Wait()         //nolint:errcheck // killed on purpose
	c.cmd = nil
}
