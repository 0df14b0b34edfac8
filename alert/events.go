package alert

import (
	"context"
	"strconv"

	"github.com/stockd/stockd"
	"github.com/stockd/stockd/store"
)

// The alert's events on the ledger (stockd.Notice): raised when an
// episode opens, escalated when its level or tier climbs, acknowledged
// once someone took it on, resolved when it ends. Each has a subject that
// makes it once per step: the alert id, and for an escalation the level
// and tier it reached.

// notice writes the events of one decision written (d, over the open
// alert read before it). The alert is already stored: a notice that fails
// is logged, not retried, and the alert's own records stay the truth.
func (w *Worker) notice(ctx context.Context, before *stockd.Alert, d Decision, res store.AlertWriteResult) {
	if w.cfg.Notify == nil {
		return
	}
	var notices []stockd.Notice
	if r := d.Resolve; r != nil {
		if r.AckedAt != nil && !w.ackNoticed(r.ID) {
			notices = append(notices, ackNotice(*r))
		}
		notices = append(notices, stockd.Notice{Type: stockd.NoticeAlertResolved, Subject: alertSubject(r.ID), SKU: r.SKU, Reason: r.Resolution})
	}
	if d.Save != nil {
		saved := res.Saved
		switch {
		case d.Save.ID == 0:
			notices = append(notices, stockd.Notice{Type: stockd.NoticeAlertRaised, Subject: alertSubject(saved.ID), SKU: saved.SKU, Reason: saved.Level})
		case before != nil && before.ID == saved.ID && (before.Level != saved.Level || before.Tier != saved.Tier):
			notices = append(notices, stockd.Notice{Type: stockd.NoticeAlertEscalated,
				Subject: alertSubject(saved.ID) + "/" + saved.Level + "/" + strconv.Itoa(saved.Tier), SKU: saved.SKU, Reason: saved.Level})
		}
	}
	w.send(ctx, notices)
	if r := d.Resolve; r != nil {
		w.mu.Lock()
		delete(w.acked, r.ID)
		w.mu.Unlock()
	}
}

// noticeAck notices the acknowledgement of an open alert, once.
func (w *Worker) noticeAck(ctx context.Context, a stockd.Alert) {
	if w.cfg.Notify == nil || a.AckedAt == nil || w.ackNoticed(a.ID) {
		return
	}
	if w.send(ctx, []stockd.Notice{ackNotice(a)}) {
		w.mu.Lock()
		if len(w.acked) < pendingMax {
			w.acked[a.ID] = true
		}
		w.mu.Unlock()
	}
}

func (w *Worker) ackNoticed(id int64) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.acked[id]
}

// send writes notices and reports whether they were written.
func (w *Worker) send(ctx context.Context, notices []stockd.Notice) bool {
	if len(notices) == 0 {
		return true
	}
	if err := w.cfg.Notify(ctx, notices); err != nil {
		w.cfg.Logger.Warn("alert worker: writing alert events on the ledger failed", "notices", len(notices), "err", err)
		return false
	}
	return true
}

func ackNotice(a stockd.Alert) stockd.Notice {
	return stockd.Notice{Type: stockd.NoticeAlertAcknowledged, Subject: alertSubject(a.ID), SKU: a.SKU, Reason: "by " + a.AckedBy}
}

func alertSubject(id int64) string { return strconv.FormatInt(id, 10) }
