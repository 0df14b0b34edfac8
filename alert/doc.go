// Package alert turns replenishment figures into alerts people act on
// (seed 003 §4.3): records of a SKU at a level, with dedup, suppression,
// escalation and acknowledgement (Decide, pure and table-tested), the
// worker that evaluates SKUs when their stock changes and once a day
// (Worker), and the sinks that deliver notices (webhook, Slack, log), each
// bound to one environment.
package alert
