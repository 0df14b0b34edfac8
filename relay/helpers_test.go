package relay_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/engine"
	"github.com/stockd/stockd/httpapi"
	"github.com/stockd/stockd/relay"
	"github.com/stockd/stockd/store"
)

// natsURL is the machine's NATS server, or skips t.
func natsURL(t testing.TB) string {
	t.Helper()
	url := os.Getenv("STOCKD_TEST_NATS_URL")
	if url == "" {
		t.Skip("STOCKD_TEST_NATS_URL is unset: set it to a NATS server with JetStream (nats://127.0.0.1:4222) to run the relay tests")
	}
	return url
}

// unique is a fresh name part, so that tests and the machine's own use of
// its NATS server never share a stream or a subject.
func unique(t testing.TB) string {
	t.Helper()
	b := make([]byte, 6)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// target is one test's stream on one server.
type target struct {
	url, stream, env string
}

// newTarget names a fresh stream and environment on url and deletes the
// stream when t ends.
func newTarget(t testing.TB, url string) target {
	t.Helper()
	id := unique(t)
	tg := target{url: url, stream: "TEST_" + id, env: "t" + id}
	t.Cleanup(func() {
		nc, err := nats.Connect(url, nats.Timeout(2*time.Second))
		if err != nil {
			return // a test's own server may be gone already
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = js.DeleteStream(ctx, tg.stream) //nolint:errcheck // best effort
	})
	return tg
}

// config is a relay on tg with the test's short intervals.
func (tg target) config(s store.Store) relay.Config {
	return relay.Config{
		Store: s, URL: tg.url, Stream: tg.stream, Environment: tg.env,
		Encode:          httpapi.MarshalEvent,
		PollInterval:    20 * time.Millisecond,
		StandbyInterval: 100 * time.Millisecond,
		AckTimeout:      2 * time.Second,
		RetryMax:        500 * time.Millisecond,
	}
}

// running is a relay started in the background.
type running struct {
	relay  *relay.Relay
	cancel context.CancelFunc
	done   chan error
}

func start(t testing.TB, cfg relay.Config) *running {
	t.Helper()
	r, err := relay.New(cfg)
	if err != nil {
		t.Fatalf("relay.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	run := &running{relay: r, cancel: cancel, done: make(chan error, 1)}
	go func() { run.done <- r.Run(ctx) }()
	t.Cleanup(run.stop)
	return run
}

// stop ends the relay wherever it is, mid-window or not, and waits for it.
func (r *running) stop() {
	r.cancel()
	<-r.done
	r.done <- nil // stop may be called again
}

// producer writes receipts through a real engine, from several goroutines
// so that batches form, over skus (one with a '.' the subject escapes).
type producer struct {
	engine *engine.Engine
	skus   []string
	wg     sync.WaitGroup
	mu     sync.Mutex
	err    error
}

var producerSKUs = []string{"tea.green", "tea.black", "coffee", "cup", "pot:1", "filter-2"}

func newProducer(t testing.TB, s store.Store) *producer {
	t.Helper()
	e := engine.New(engine.Config{Store: s})
	t.Cleanup(e.Close)
	p := &producer{engine: e, skus: producerSKUs}
	for _, sku := range p.skus {
		p.submit(t.Name()+"-sku-"+sku, &stockd.SKUCreate{SKU: stockd.SKU{ID: sku, Name: sku}})
	}
	if err := p.wait(); err != nil {
		t.Fatal(err)
	}
	return p
}

func (p *producer) submit(key string, op stockd.Operation) {
	res, err := p.engine.Submit(context.Background(), stockd.Command{Op: op, IdempotencyKey: key, RequestHash: key})
	if err == nil && res.Err != nil {
		err = res.Err
	}
	if err != nil {
		p.mu.Lock()
		p.err = fmt.Errorf("%s: %w", key, err)
		p.mu.Unlock()
	}
}

// receipts starts writers goroutines, each making n receipts.
func (p *producer) receipts(writers, n int) {
	for w := range writers {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for i := range n {
				sku := p.skus[(w+i)%len(p.skus)]
				p.submit(fmt.Sprintf("r-%d-%d-%d", w, i, time.Now().UnixNano()), &stockd.Receive{
					Position: stockd.PositionKey{SKU: sku, Location: "default"}, Quantity: int64(1 + i%5),
				})
			}
		}()
	}
}

func (p *producer) wait() error {
	p.wg.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// eventually polls cond every 20 ms until it holds or d passes.
func eventually(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// caughtUp waits until r's cursor is the ledger's last seq.
func caughtUp(t testing.TB, s store.Store, r *relay.Relay, d time.Duration) {
	t.Helper()
	last, err := s.LedgerSeqMax(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, d, fmt.Sprintf("relay at %+v, ledger at %d", r.Status(), last), func() bool { return r.Status().Cursor >= last })
}

// stored is one message of the stream.
type stored struct {
	subject, id, eventType string
	seq                    int64
	event                  httpapi.LedgerEntry
}

// readStream returns every message of tg's stream in stream order.
func readStream(t testing.TB, tg target) []stored {
	t.Helper()
	nc, err := nats.Connect(tg.url)
	if err != nil {
		t.Fatalf("connect to read the stream: %v", err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := js.Stream(ctx, tg.stream)
	if err != nil {
		t.Fatalf("stream %s: %v", tg.stream, err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var out []stored
	for uint64(len(out)) < info.State.Msgs {
		batch, err := cons.Fetch(500, jetstream.FetchMaxWait(2*time.Second))
		if err != nil {
			t.Fatalf("fetch: %v", err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			seq, err := strconv.ParseInt(m.Headers().Get(relay.HeaderSeq), 10, 64)
			if err != nil {
				t.Fatalf("message %q without a seq header: %v", m.Subject(), err)
			}
			var e httpapi.LedgerEntry
			if err := json.Unmarshal(m.Data(), &e); err != nil {
				t.Fatalf("message %d body: %v", seq, err)
			}
			out = append(out, stored{subject: m.Subject(), id: m.Headers().Get(jetstream.MsgIDHeader),
				eventType: m.Headers().Get(relay.HeaderType), seq: seq, event: e})
		}
		if err := batch.Error(); err != nil {
			t.Fatalf("fetch: %v", err)
		}
		if n == 0 {
			t.Fatalf("stream holds %d messages, read %d", info.State.Msgs, len(out))
		}
	}
	return out
}

// checkDelivered asserts that the stream holds every ledger entry, each
// with its id, subject and body; that a message seen twice carries the
// same id; and that first deliveries come in seq order, so in order per
// position. It returns how many duplicates the stream holds.
func checkDelivered(t testing.TB, s store.Store, tg target) int {
	t.Helper()
	msgs := readStream(t, tg)
	var ledger []stockd.LedgerEntry
	for after := int64(0); ; {
		page, err := s.LedgerList(context.Background(), store.LedgerListParams{After: after, Limit: stockd.PageSizeMax})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		ledger = append(ledger, page...)
		after = page[len(page)-1].Seq
	}
	bySeq := map[int64]stockd.LedgerEntry{}
	for _, e := range ledger {
		bySeq[e.Seq] = e
	}
	seen := map[int64]bool{}
	duplicates := 0
	lastFirst := int64(0)
	lastOfPosition := map[stockd.PositionKey]int64{}
	for i, m := range msgs {
		e, ok := bySeq[m.seq]
		if !ok {
			t.Fatalf("message %d: seq %d is not in the ledger", i, m.seq)
		}
		if m.id != relay.EventID(tg.env, m.seq) {
			t.Fatalf("message %d: id %q; want %q", i, m.id, relay.EventID(tg.env, m.seq))
		}
		if want := relay.Subject(tg.env, e.BusinessType, e.Position.SKU); m.subject != want {
			t.Fatalf("message %d: subject %q; want %q", i, m.subject, want)
		}
		if m.event.Seq != e.Seq || m.event.SKU != e.Position.SKU || m.event.Location != e.Position.Location ||
			m.event.Type != e.BusinessType || m.event.After.OnHand != e.After.OnHand || m.eventType != e.BusinessType {
			t.Fatalf("message %d: %+v does not carry ledger entry %+v", i, m.event, e)
		}
		if seen[m.seq] {
			duplicates++
			continue
		}
		seen[m.seq] = true
		if m.seq < lastFirst {
			t.Fatalf("message %d: seq %d delivered after %d", i, m.seq, lastFirst)
		}
		lastFirst = m.seq
		if m.seq < lastOfPosition[e.Position] {
			t.Fatalf("message %d: position %v out of order", i, e.Position)
		}
		lastOfPosition[e.Position] = m.seq
	}
	if len(seen) != len(ledger) {
		t.Fatalf("stream holds %d of %d ledger entries", len(seen), len(ledger))
	}
	return duplicates
}

// natsServer is a JetStream server of the test's own, on a free port, with
// its store in a directory of the test, so that stopping it never touches
// the machine's server.
type natsServer struct {
	t    testing.TB
	port int
	dir  string
	cmd  *exec.Cmd
}

const natsServerPath = "/usr/sbin/nats-server"

func newNATSServer(t testing.TB) *natsServer {
	t.Helper()
	if _, err := os.Stat(natsServerPath); err != nil {
		t.Skipf("%s is not installed: %v", natsServerPath, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	s := &natsServer{t: t, port: port, dir: t.TempDir()}
	s.start()
	t.Cleanup(s.stop)
	return s
}

func (s *natsServer) url() string { return fmt.Sprintf("nats://127.0.0.1:%d", s.port) }

func (s *natsServer) start() {
	s.t.Helper()
	s.cmd = exec.Command(natsServerPath, "-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", s.dir)
	if err := s.cmd.Start(); err != nil {
		s.t.Fatalf("start nats-server: %v", err)
	}
	eventually(s.t, 10*time.Second, "nats-server answers", func() bool {
		nc, err := nats.Connect(s.url(), nats.Timeout(200*time.Millisecond))
		if err != nil {
			return false
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			return false
		}
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_, err = js.AccountInfo(ctx)
		return err == nil
	})
}

// stop kills the server at once, as a crash would.
func (s *natsServer) stop() {
	if s.cmd == nil {
		return
	}
	_ = s.cmd.Process.Kill() //nolint:errcheck // it may have exited
	_ = s.cmd.Wait()         //nolint:errcheck // killed on purpose
	s.cmd = nil
}

// counter reads one unlabelled metric of reg.
func counter(t testing.TB, reg *prometheus.Registry, name string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			}
		}
	}
	t.Fatalf("metric %s not registered", name)
	return 0
}

// countLedger counts the ledger's entries.
func countLedger(t testing.TB, s store.Store) int {
	t.Helper()
	n := 0
	for after := int64(0); ; {
		page, err := s.LedgerList(context.Background(), store.LedgerListParams{After: after, Limit: stockd.PageSizeMax})
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			return n
		}
		n += len(page)
		after = page[len(page)-1].Seq
	}
}
