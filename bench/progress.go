package bench

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progressInterval is how often the bar shows the running row's count.
const progressInterval = 250 * time.Millisecond

// progress is the bar on stderr: one step per row, and the running row's
// answered requests in its description. A nil writer shows nothing.
type progress struct {
	bar  *progressbar.ProgressBar
	mu   sync.Mutex
	stop chan struct{}
	done chan struct{}
}

func newProgress(w io.Writer, rows int) *progress {
	if w == nil {
		return &progress{}
	}
	return &progress{bar: progressbar.NewOptions(rows,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(24),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(false),
		progressbar.OptionSetElapsedTime(true),
		progressbar.OptionThrottle(progressInterval/2),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
	)}
}

// describe labels the running row; with answered it keeps the label
// updated with the count until the next describe or rowDone.
func (p *progress) describe(label string, answered *atomic.Int64) {
	if p.bar == nil {
		return
	}
	p.stopTicker()
	p.bar.Describe(label)
	if answered == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	stop, done := p.stop, p.done
	go func() {
		defer close(done)
		start := time.Now()
		ticker := time.NewTicker(progressInterval)
		defer ticker.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ticker.C:
				p.bar.Describe(fmt.Sprintf("%s: %.0fs, %d answered", label, time.Since(start).Seconds(), answered.Load()))
			}
		}
	}()
}

func (p *progress) stopTicker() {
	p.mu.Lock()
	stop, done := p.stop, p.done
	p.stop, p.done = nil, nil
	p.mu.Unlock()
	if stop != nil {
		close(stop)
		<-done
	}
}

func (p *progress) rowDone() {
	if p.bar == nil {
		return
	}
	p.stopTicker()
	_ = p.bar.Add(1) // a failed redraw of the bar is no reason to stop
}

func (p *progress) finish() {
	if p.bar == nil {
		return
	}
	p.stopTicker()
	_ = p.bar.Finish()
}
