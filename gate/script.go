package gate

import "github.com/redis/go-redis/v9"

// Answers of takeScript.
const (
	answerMissing      = -1 // a stock key is missing: refill from the database, never a success
	answerInsufficient = 0
	answerTaken        = 1
	answerLimit        = 2
	answerReplay       = 3
	answerKeyReused    = 4
	answerPaused       = 5 // a preheat or refill is settling the campaign
	answerClosed       = 6 // a position closed after a win the database refused
	answerShut         = 7 // the campaign is closed: no win after the close, ever
)

// takeScript decides one gated reservation, atomically: Redis runs a
// script alone, so no other reservation sees the stock between its check
// and its decrement (the check-then-act a GET followed by a DECR would
// leave open, which TestNaiveGateOversells shows).
//
// KEYS: 1 replay, 2 paused, 3 closed, 4 limit, 5 customer's count,
// 6 inflight, 7 stream, 8 pending, 9 shut, 10.. one stock key per line.
// The shut key is apart from the pause on purpose: a refill's pause comes
// and goes, the close's shut stays, and neither may undo the other.
// ARGV: 1 request hash, 2 answer, 3 replay ttl seconds, 4 customer,
// 5 total quantity, 6 reservation id, 7 idempotency key, 8 won at,
// 9 lines (JSON), 10 ttl seconds, 11 actor, then per line its field and
// quantity.
var takeScript = redis.NewScript(`
local r = redis.call('HMGET', KEYS[1], 'hash', 'answer')
if r[1] then
  if r[1] == ARGV[1] then return {3, r[2]} end
  return {4, ''}
end
if redis.call('EXISTS', KEYS[9]) == 1 then return {7, ''} end
if redis.call('EXISTS', KEYS[2]) == 1 then return {5, ''} end
local n = #KEYS - 9
local stock = {}
for i = 1, n do
  local field = ARGV[10 + 2 * i]
  local v = redis.call('GET', KEYS[9 + i])
  if not v then return {-1, field} end
  if redis.call('HEXISTS', KEYS[3], field) == 1 then return {6, field} end
  stock[i] = tonumber(v)
end
local total = tonumber(ARGV[5])
local limited = false
if ARGV[4] ~= '' then
  local max = redis.call('GET', KEYS[4])
  if max then
    limited = true
    local used = tonumber(redis.call('GET', KEYS[5]) or '0')
    if used + total > tonumber(max) then return {2, tostring(used)} end
  end
end
for i = 1, n do
  if stock[i] < tonumber(ARGV[11 + 2 * i]) then return {0, ARGV[10 + 2 * i]} end
end
for i = 1, n do
  local q = tonumber(ARGV[11 + 2 * i])
  redis.call('DECRBY', KEYS[9 + i], q)
  redis.call('HINCRBY', KEYS[6], ARGV[10 + 2 * i], q)
end
if limited then redis.call('INCRBY', KEYS[5], total) end
local sid = redis.call('XADD', KEYS[7], '*', 'id', ARGV[6], 'key', ARGV[7], 'hash', ARGV[1],
  'customer', ARGV[4], 'at', ARGV[8], 'lines', ARGV[9], 'ttl', ARGV[10], 'actor', ARGV[11])
redis.call('HSET', KEYS[8], ARGV[6], sid)
redis.call('HSET', KEYS[1], 'hash', ARGV[1], 'answer', ARGV[2])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[3]))
return {1, sid}
`)

// ackScript ends one stream entry once the database holds its outcome:
// acknowledged, deleted, no longer pending and no longer counted in
// flight, in one step, so that a persister that dies between the database
// and Redis and replays the entry never counts it down twice.
//
// KEYS: 1 stream, 2 inflight, 3 pending, 4 applying. ARGV: 1 group,
// 2 entry id, 3 reservation id, then per line its field and quantity.
var ackScript = redis.NewScript(`
redis.call('HDEL', KEYS[4], ARGV[2])
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('XDEL', KEYS[1], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[3])
for i = 4, #ARGV, 2 do redis.call('HINCRBY', KEYS[2], ARGV[i], -tonumber(ARGV[i + 1])) end
return 1
`)

// unlockScript deletes a lock only while it still holds this holder's
// token, so that a holder whose lock expired never frees another's.
var unlockScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`)

// returnScript gives units a release, expiry or refund returned in the
// database back to one position of the gate, once: only when the ledger
// entry's seq is above the position's mark, the seq of the newest entry
// the position's Redis count already holds, and it then raises the mark. A refill that
// read the database after the entry wrote a mark at or above it, and a
// returner replaying entries after a crash finds its own mark: neither
// adds the units twice. A position without a stock key is left alone (the
// refill that recreates it reads the database, which holds the units), and
// so is one with a count but no mark (written by a version without marks:
// what it holds is unknown; the next preheat writes both).
//
// KEYS: 1 stock, 2 mark. ARGV: 1 seq, 2 quantity, 3 "1" to check the mark
// ("0" only from the tests' negative control).
// Answers: 1 added, 0 already held, -1 no stock key, -2 no mark.
var returnScript = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
local seq = tonumber(ARGV[1])
local mark = redis.call('GET', KEYS[2])
if ARGV[3] == '1' then
  if not mark then return -2 end
  if seq <= tonumber(mark) then return 0 end
end
redis.call('INCRBY', KEYS[1], tonumber(ARGV[2]))
if seq > tonumber(mark or '0') then redis.call('SET', KEYS[2], ARGV[1]) end
return 1
`)

// fillScript writes positions read from the database, each with the seq of
// the last ledger entry the read included as its mark, all or none: when a
// position's mark is already above the seq read (the returner added a
// release the read did not see), it writes nothing and answers that
// position's index, and the caller reads the database again; when the
// settle's pause is no longer its own (it outlived its deadline, so wins
// may have been taken since the read), it writes nothing and answers -1.
// Otherwise it answers 0.
//
// KEYS: 1 paused, then per position its stock key and its mark key.
// ARGV: 1 "1" to check the marks ("0" only from the tests' negative
// control), 2 the settle's pause token, then per position its quantity and
// seq.
var fillScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[2] then return -1 end
local n = (#KEYS - 1) / 2
if ARGV[1] == '1' then
  for i = 1, n do
    local mark = tonumber(redis.call('GET', KEYS[2 * i + 1]) or '0')
    if mark > tonumber(ARGV[2 * i + 2]) then return i end
  end
end
for i = 1, n do
  redis.call('SET', KEYS[2 * i], ARGV[2 * i + 1])
  redis.call('SET', KEYS[2 * i + 1], ARGV[2 * i + 2])
end
return 0
`)
