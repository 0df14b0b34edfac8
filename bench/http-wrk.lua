-- bench/http-wrk.lua: wrk drives POST /v1/reservations of one hot SKU, one
-- unit per request, each under an Idempotency-Key of its own (run id, wrk
-- thread, counter), so that no request is a replay. Run by bench/http-wrk.sh:
--
--   wrk -t2 -c256 -d5s --latency -s bench/http-wrk.lua URL -- SKU RUN_ID [API_KEY]
--
-- Every answer's status is counted per class: wrk's own summary lumps 3xx
-- with 2xx and says nothing of which errors came back, and a benchmark
-- whose requests failed must say so rather than count them as throughput.
-- done() prints one line the script parses:
--   wrk-result requests=N ok=N non2xx=N s409=N s429=N s4xx=N s5xx=N errors=N p50_ms=F p99_ms=F ...

local threads = {}
local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_id", thread_count)
  table.insert(threads, thread)
end

function init(args)
  sku = args[1]
  run_id = args[2]
  api_key = args[3]
  if sku == nil or run_id == nil then
    error("usage: wrk ... -s http-wrk.lua URL -- SKU RUN_ID [API_KEY]")
  end
  sent = 0
  ok = 0
  s409 = 0
  s429 = 0
  s4xx = 0
  s5xx = 0
  other = 0
  body = '{"lines":[{"sku":"' .. sku .. '","quantity":1}]}'
  headers = { ["Content-Type"] = "application/json" }
  if api_key ~= nil and api_key ~= "" then
    headers["Authorization"] = "Bearer " .. api_key
  end
  key_prefix = run_id .. "-t" .. thread_id .. "-"
end

function request()
  sent = sent + 1
  headers["Idempotency-Key"] = key_prefix .. sent
  return wrk.format("POST", "/v1/reservations", headers, body)
end

function response(status, hdrs, resp_body)
  if status >= 200 and status < 300 then
    ok = ok + 1
  elseif status == 409 then
    s409 = s409 + 1
  elseif status == 429 then
    s429 = s429 + 1
  elseif status >= 400 and status < 500 then
    s4xx = s4xx + 1
  elseif status >= 500 then
    s5xx = s5xx + 1
  else
    other = other + 1
  end
end

function done(summary, latency, requests)
  local totals = { ok = 0, s409 = 0, s429 = 0, s4xx = 0, s5xx = 0, other = 0 }
  for _, t in ipairs(threads) do
    for name, _ in pairs(totals) do
      totals[name] = totals[name] + (t:get(name) or 0)
    end
  end
  local e = summary.errors
  local socket_errors = e.connect + e.read + e.write + e.timeout
  local seconds = summary.duration / 1e6
  io.write(string.format(
    "wrk-result requests=%d ok=%d non2xx=%d s409=%d s429=%d s4xx=%d s5xx=%d other=%d errors=%d timeouts=%d " ..
    "seconds=%.3f rps=%.0f ok_rps=%.0f p50_ms=%.2f p90_ms=%.2f p99_ms=%.2f max_ms=%.2f\n",
    summary.requests, totals.ok, summary.requests - totals.ok, totals.s409, totals.s429, totals.s4xx,
    totals.s5xx, totals.other, socket_errors, e.timeout, seconds, summary.requests / seconds,
    totals.ok / seconds, latency:percentile(50) / 1000, latency:percentile(90) / 1000,
    latency:percentile(99) / 1000, latency.max / 1000))
end
