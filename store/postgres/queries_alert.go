package postgres

// The alert worker's queries (0010_alerts.sql).
const (
	// queryAlertOpenCounts is served by alerts_open_sku (status = 'open').
	queryAlertOpenCounts = `SELECT level, count(*) FROM alerts WHERE status = 'open' GROUP BY level`

	alertColumns = `id, version, body`

	queryAlertOpenGet      = `SELECT ` + alertColumns + ` FROM alerts WHERE sku = $1 AND status = 'open'`
	queryAlertGet          = `SELECT ` + alertColumns + ` FROM alerts WHERE id = $1`
	queryAlertGetForUpdate = queryAlertGet + ` FOR UPDATE`
	// An empty filter matches every row.
	queryAlertList = `
SELECT ` + alertColumns + `
FROM alerts
WHERE id > $1 AND ($2 = '' OR level = $2) AND ($3 = '' OR status = $3) AND ($4 = '' OR sku = $4)
ORDER BY id
LIMIT $5`
	queryAlertInsert = `
INSERT INTO alerts (sku, level, status, version, body) VALUES ($1, $2, $3, 1, $4)
RETURNING id`
	queryAlertUpdate = `
UPDATE alerts SET level = $1, status = $2, version = version + 1, body = $3
WHERE id = $4 AND version = $5`

	alertNoticeColumns     = `alert_id, sku, level, tier, business_date, kind, at`
	queryAlertNoticeInsert = `
INSERT INTO alert_notices (` + alertNoticeColumns + `) VALUES ($1, $2, $3, $4, $5, $6, $7)
ON CONFLICT DO NOTHING`
	queryAlertNoticeList = `
SELECT ` + alertNoticeColumns + `
FROM alert_notices
WHERE business_date = $1 AND ($2 = '' OR sku = $2)
ORDER BY sku, level, tier, kind
LIMIT $3`

	alertDeliveryColumns     = `id, alert_id, sink, attempt, at, status_code, delivered, error`
	queryAlertDeliveryInsert = `
INSERT INTO alert_deliveries (alert_id, sink, attempt, at, status_code, delivered, error)
VALUES ($1, $2, $3, $4, $5, $6, $7)`
	queryAlertDeliveryList = `
SELECT ` + alertDeliveryColumns + ` FROM alert_deliveries WHERE alert_id = $1 ORDER BY id LIMIT $2`

	queryAlertDigestMark = `INSERT INTO alert_digests (business_date, at) VALUES ($1, $2) ON CONFLICT DO NOTHING`

	queryAlertCursorGet = `SELECT ledger_seq FROM alert_cursor WHERE id = 1`
	queryAlertCursorSet = `
INSERT INTO alert_cursor (id, ledger_seq) VALUES (1, $1)
ON CONFLICT (id) DO UPDATE SET ledger_seq = excluded.ledger_seq`
)
