package sqlite

// The alert worker's queries (0010_alerts.sql).
const (
	// queryAlertOpenCounts is served by alerts_open_sku (status = 'open').
	queryAlertOpenCounts = `SELECT level, count(*) FROM alerts WHERE status = 'open' GROUP BY level`

	alertColumns = `id, version, body`

	queryAlertOpenGet = `SELECT ` + alertColumns + ` FROM alerts WHERE sku = ? AND status = 'open'`
	queryAlertGet     = `SELECT ` + alertColumns + ` FROM alerts WHERE id = ?`
	// An empty filter matches every row.
	queryAlertList = `
SELECT ` + alertColumns + `
FROM alerts
WHERE id > ? AND (? = '' OR level = ?) AND (? = '' OR status = ?) AND (? = '' OR sku = ?)
ORDER BY id
LIMIT ?`
	queryAlertInsert = `
INSERT INTO alerts (sku, level, status, version, body) VALUES (?, ?, ?, 1, ?)
RETURNING id`
	queryAlertUpdate = `
UPDATE alerts SET level = ?, status = ?, version = version + 1, body = ?
WHERE id = ? AND version = ?`

	alertNoticeColumns     = `alert_id, sku, level, tier, business_date, kind, at`
	queryAlertNoticeInsert = `
INSERT INTO alert_notices (` + alertNoticeColumns + `) VALUES (?, ?, ?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING`
	queryAlertNoticeList = `
SELECT ` + alertNoticeColumns + `
FROM alert_notices
WHERE business_date = ? AND (? = '' OR sku = ?)
ORDER BY sku, level, tier, kind
LIMIT ?`

	alertDeliveryColumns     = `id, alert_id, sink, attempt, at, status_code, delivered, error`
	queryAlertDeliveryInsert = `
INSERT INTO alert_deliveries (alert_id, sink, attempt, at, status_code, delivered, error)
VALUES (?, ?, ?, ?, ?, ?, ?)`
	queryAlertDeliveryList = `
SELECT ` + alertDeliveryColumns + ` FROM alert_deliveries WHERE alert_id = ? ORDER BY id LIMIT ?`

	queryAlertDigestMark = `INSERT INTO alert_digests (business_date, at) VALUES (?, ?) ON CONFLICT DO NOTHING`

	queryAlertCursorGet = `SELECT ledger_seq FROM alert_cursor WHERE id = 1`
	queryAlertCursorSet = `
INSERT INTO alert_cursor (id, ledger_seq) VALUES (1, ?)
ON CONFLICT (id) DO UPDATE SET ledger_seq = excluded.ledger_seq`
)
