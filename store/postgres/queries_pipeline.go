package postgres

// queryBatchBegin starts a batch's READ COMMITTED transaction and has its
// reads planned for each execution's arguments and the tables' current size
// (plan_cache_mode = force_custom_plan), in the same round trip: an
// Exec without arguments goes over the simple protocol, which takes two
// statements in one string.
//
// Why: a prepared statement may switch to a generic plan after five
// executions and keep it until the table's statistics change. A generic
// plan made while a table was small (a fresh database) may scan it
// sequentially, and without ANALYZE (autovacuum off) nothing replans it as
// the table grows (docs/benchmarks.md, "Planner statistics"). The batch's
// locking lookups (= ANY($1), JOIN unnest) are short: planning them costs
// microseconds. Custom plans for the writes too (the setting on the whole
// connection) cost a quarter of hot's throughput at 256 callers in a side
// by side run (their arrays are planned as constants every time), so
// BatchRowsRead ends the reads with queryBatchWritePlans.
const queryBatchBegin = `BEGIN ISOLATION LEVEL READ COMMITTED READ WRITE; SET LOCAL plan_cache_mode = force_custom_plan`

// queryBatchWritePlans gives the rest of the transaction the session's plan
// cache mode back.
const queryBatchWritePlans = `SET LOCAL plan_cache_mode TO DEFAULT`
