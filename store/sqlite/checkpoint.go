package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"time"
)

// The writer runs with wal_autocheckpoint=0: SQLite's automatic checkpoint
// runs inside the commit that crosses its threshold, on the one writer
// connection, so every batch queued behind that commit waited for pages
// to be copied into the database file and the file synced (about a tenth
// of the writer's time). The checkpointer below does it beside the writer
// instead.
//
// Checkpointing is safe at any time and changes nothing about durability:
// a commit is durable once its WAL frames are synced (synchronous=FULL,
// before Commit returns), whether or not they were copied into the database
// file yet. A checkpoint only copies committed frames, syncs the WAL before
// and the database file after, and SQLite recovers an interrupted one from
// the WAL on the next open. What a late checkpoint costs is a longer WAL:
// more to read for readers, more to replay after a crash.
const (
	// checkpointIntervalDefault is how often the checkpointer copies the
	// WAL into the database file.
	checkpointIntervalDefault = 200 * time.Millisecond
	// checkpointTimeout bounds one pass.
	checkpointTimeout = 30 * time.Second
	// walFramesResetDefault is the WAL size, in frames (pages), past which a
	// pass finishes its checkpoint on the writer connection. The writer
	// starts the WAL over only once every frame is in the database file,
	// which a checkpoint beside a busy writer never achieves: frames are
	// appended while it copies. Between batches, after the background pass
	// copied most of them, what is left is little; still it holds up the
	// batches, so it should be rare. 16,384 frames of 4 KiB are 64 MiB.
	walFramesResetDefault = 16384
	// walFramesTruncateDefault is the WAL size past which a pass truncates
	// the WAL, waiting (busy_timeout) for readers: a reader's old snapshot
	// keeps its frames from being copied and the WAL from starting over.
	// 65,536 frames of 4 KiB are 256 MiB.
	walFramesTruncateDefault = 65536
	// truncateBackoffMin and truncateBackoffMax bound how long a pass
	// waits, after a TRUNCATE that a reader kept busy, before it tries
	// another. Each try holds the writer for up to busy_timeout, so while
	// a long read (an export, an archive) holds its snapshot, trying on
	// every pass would let about one batch through per busy_timeout.
	truncateBackoffMin = time.Second
	truncateBackoffMax = time.Minute
)

// checkpointConfig configures the checkpointer; zero fields take defaults.
type checkpointConfig struct {
	// Interval between passes. Defaults to 200 milliseconds.
	Interval time.Duration
	// WALFramesReset is the WAL size, in frames, above which a pass runs a
	// PASSIVE checkpoint on the writer connection too. Defaults to 16,384.
	WALFramesReset int64
	// WALFramesTruncate is the WAL size, in frames, above which a pass runs
	// a TRUNCATE checkpoint on the writer connection. Defaults to 65,536.
	WALFramesTruncate int64
	// Passed, if not nil, receives every pass's outcome (tests).
	Passed chan<- checkpointPass
	// Ticks, if not nil, replaces the interval's ticker: a pass runs on
	// each value received (tests).
	Ticks <-chan time.Time
}

// checkpointPass is what one pass of the checkpointer did.
type checkpointPass struct {
	// WALFrames is the WAL's size in frames after the PASSIVE checkpoint,
	// CheckpointedFrames how many of them are in the database file.
	WALFrames, CheckpointedFrames int64
	// OnWriter is set when the pass also ran a PASSIVE checkpoint on the
	// writer connection, Truncated when it ran a TRUNCATE one there, and
	// TruncateDeferred when the WAL was past its bound but the last
	// TRUNCATE was busy too recently to try again (it ran PASSIVE).
	OnWriter, Truncated, TruncateDeferred bool
	Err                                   error
}

// checkpointer copies the WAL into the database file in the background.
type checkpointer struct {
	// passive has its own connection, so that a PASSIVE checkpoint runs
	// while the writer commits batches.
	passive *sql.DB
	// writer is the writer pool: the checkpoints that must see no writer
	// queue for it like a batch, between batches.
	writer *sql.DB
	config checkpointConfig
	stop   context.CancelFunc
	done   chan struct{}
	// truncateBackoff and truncateNotBefore space out TRUNCATE tries that
	// readers keep busy; only the run goroutine touches them.
	truncateBackoff   time.Duration
	truncateNotBefore time.Time
}

func startCheckpointer(passive, writer *sql.DB, config checkpointConfig) *checkpointer {
	if config.Interval <= 0 {
		config.Interval = checkpointIntervalDefault
	}
	if config.WALFramesReset <= 0 {
		config.WALFramesReset = walFramesResetDefault
	}
	if config.WALFramesTruncate <= 0 {
		config.WALFramesTruncate = walFramesTruncateDefault
	}
	ctx, stop := context.WithCancel(context.Background())
	c := &checkpointer{passive: passive, writer: writer, config: config, stop: stop, done: make(chan struct{})}
	go c.run(ctx)
	return c
}

// Close stops the checkpointer and waits for its pass to end.
func (c *checkpointer) Close() {
	c.stop()
	<-c.done
}

func (c *checkpointer) run(ctx context.Context) {
	defer close(c.done)
	ticks := c.config.Ticks
	if ticks == nil {
		ticker := time.NewTicker(c.config.Interval)
		defer ticker.Stop()
		ticks = ticker.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
		pass := c.pass(ctx)
		if pass.Err != nil && ctx.Err() == nil {
			slog.Warn("sqlite wal checkpoint", "err", pass.Err, "wal_frames", pass.WALFrames)
		}
		if c.config.Passed != nil {
			select {
			case c.config.Passed <- pass:
			case <-ctx.Done():
				return
			}
		}
	}
}

// pass runs one PASSIVE checkpoint beside the writer and, past the WAL's
// bounds, one on the writer connection. An error is reported and the next
// pass tries again.
func (c *checkpointer) pass(ctx context.Context) checkpointPass {
	ctx, cancel := context.WithTimeout(ctx, checkpointTimeout)
	defer cancel()
	var pass checkpointPass
	var busy int64
	err := c.passive.QueryRowContext(ctx, `PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &pass.WALFrames, &pass.CheckpointedFrames)
	if err != nil {
		pass.Err = fmt.Errorf("passive checkpoint: %w", interpretError(err))
		return pass
	}
	var query string
	now := time.Now()
	switch {
	case pass.WALFrames > c.config.WALFramesTruncate && now.Before(c.truncateNotBefore):
		pass.OnWriter, pass.TruncateDeferred = true, true
		query = `PRAGMA wal_checkpoint(PASSIVE)`
	case pass.WALFrames > c.config.WALFramesTruncate:
		// TRUNCATE waits for readers on old snapshots, copies what is left
		// and empties the WAL file, holding up batches meanwhile: the price
		// of the bound.
		pass.OnWriter, pass.Truncated = true, true
		query = `PRAGMA wal_checkpoint(TRUNCATE)`
	case pass.WALFrames > c.config.WALFramesReset:
		pass.OnWriter = true
		query = `PRAGMA wal_checkpoint(PASSIVE)`
	default:
		return pass
	}
	err = c.writer.QueryRowContext(ctx, query).Scan(&busy, &pass.WALFrames, &pass.CheckpointedFrames)
	if pass.Truncated {
		// The backoff counts from the end of the try, which may have
		// waited busy_timeout.
		c.truncated(time.Now(), err == nil && busy == 0)
	}
	if err != nil {
		pass.Err = fmt.Errorf("checkpoint on the writer: %w", interpretError(err))
		return pass
	}
	if pass.Truncated && busy != 0 {
		pass.Err = fmt.Errorf("truncate checkpoint: busy, wal holds %d frames", pass.WALFrames)
	}
	return pass
}

// truncated records a TRUNCATE's outcome: after a busy or failed one, the
// next waits twice as long as the last wait did (from truncateBackoffMin
// up to truncateBackoffMax); a clean one ends the backoff.
func (c *checkpointer) truncated(at time.Time, clean bool) {
	if clean {
		c.truncateBackoff, c.truncateNotBefore = 0, time.Time{}
		return
	}
	c.truncateBackoff = min(max(2*c.truncateBackoff, truncateBackoffMin), truncateBackoffMax)
	c.truncateNotBefore = at.Add(c.truncateBackoff)
}
