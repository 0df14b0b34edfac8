// Package logcap caps repeated log records. During an outage every request
// and every batch fails the same way; a log line for each (23,000 in one
// ten-second drill) buries the one line that says what happened, and costs
// disk and CPU when both are short. A Handler passes the first records of
// each level and message within a window, counts the rest, and writes one
// summary record per message when the window ends.
package logcap

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Defaults of Config.
const (
	windowDefault    = 10 * time.Second
	perWindowDefault = 5
	// messagesMax bounds the messages counted at once; past it, records of
	// new messages pass uncounted until the window ends.
	messagesMax = 1000
)

// Config configures a Handler. Zero values mean the documented default.
type Config struct {
	// Level is the lowest level capped; records below it always pass.
	// Defaults to slog.LevelWarn.
	Level slog.Level
	// Window is how long a message's count runs. Defaults to 10 seconds.
	Window time.Duration
	// PerWindow is how many records of one level and message pass per
	// window. Defaults to 5.
	PerWindow int
}

// Handler wraps another slog.Handler. Handlers made by WithAttrs and
// WithGroup share one count with the Handler they came from.
type Handler struct {
	next  slog.Handler
	state *state
}

type messageKey struct {
	level   slog.Level
	message string
}

type state struct {
	cfg  Config
	mu   sync.Mutex
	seen map[messageKey]*count
	// next receives the summaries; it is the handler the state was made
	// with, without the attributes a WithAttrs added.
	next    slog.Handler
	stop    chan struct{}
	stopped sync.WaitGroup
	once    sync.Once
	closed  bool
}

type count struct {
	since      time.Time
	passed     int
	suppressed int
}

// New returns a started Handler writing to next. Close stops it.
func New(next slog.Handler, cfg Config) *Handler {
	if cfg.Level == 0 {
		cfg.Level = slog.LevelWarn
	}
	if cfg.Window <= 0 {
		cfg.Window = windowDefault
	}
	if cfg.PerWindow <= 0 {
		cfg.PerWindow = perWindowDefault
	}
	st := &state{cfg: cfg, seen: map[messageKey]*count{}, next: next, stop: make(chan struct{})}
	st.stopped.Add(1)
	go st.run()
	return &Handler{next: next, state: st}
}

// Close writes the summaries of the current window and stops the Handler's
// goroutine. Records handled after Close pass uncapped.
func (h *Handler) Close() {
	h.state.once.Do(func() {
		close(h.state.stop)
		h.state.stopped.Wait()
		h.state.mu.Lock()
		h.state.closed = true
		h.state.mu.Unlock()
	})
}

func (h *Handler) Enabled(ctx context.Context, level slog.Level) bool {
	return h.next.Enabled(ctx, level)
}

func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if r.Level < h.state.cfg.Level || !h.state.admit(r.Level, r.Message, r.Time) {
		return h.next.Handle(ctx, r)
	}
	return nil
}

func (h *Handler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Handler{next: h.next.WithAttrs(attrs), state: h.state}
}

func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{next: h.next.WithGroup(name), state: h.state}
}

// admit reports whether a record is to be suppressed (true) or passed.
func (s *state) admit(level slog.Level, message string, at time.Time) (suppress bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	k := messageKey{level: level, message: message}
	c, ok := s.seen[k]
	if !ok {
		if len(s.seen) >= messagesMax {
			return false
		}
		c = &count{since: at}
		s.seen[k] = c
	}
	if c.passed < s.cfg.PerWindow {
		c.passed++
		return false
	}
	c.suppressed++
	return true
}

func (s *state) run() {
	defer s.stopped.Done()
	ticker := time.NewTicker(s.cfg.Window)
	defer ticker.Stop()
	for {
		select {
		case <-ticker.C:
			s.flush(time.Now())
		case <-s.stop:
			s.flush(time.Now())
			return
		}
	}
}

// flush writes one summary per message that had records suppressed, and
// starts a new window for every message.
func (s *state) flush(now time.Time) {
	s.mu.Lock()
	seen := s.seen
	s.seen = map[messageKey]*count{}
	s.mu.Unlock()
	for k, c := range seen {
		if c.suppressed == 0 {
			continue
		}
		r := slog.NewRecord(now, k.level, k.message+" (repeated)", 0)
		r.AddAttrs(slog.Int("suppressed", c.suppressed), slog.Duration("window", now.Sub(c.since).Round(time.Millisecond)))
		// A failed write of the log has no one to report to.
		_ = s.next.Handle(context.Background(), r)
	}
}
