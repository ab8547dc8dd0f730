#!/usr/bin/env bash
# Every benchmark, one after the other (`npm run bench`). Each prints its own results table and
# writes a JSON copy under bench/results/. Add a new benchmark as one line below.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsx bench/ingest.ts
npx tsx bench/ingest-postgres.ts
npx tsx bench/objects.ts
npx tsx bench/otel.ts
npx tsx bench/training.ts
npx tsx bench/monitors.ts
npx tsx bench/alerts.ts
npx tsx bench/ui.ts
npx tsx bench/ui-evals.ts
npx tsx bench/ui-dashboard.ts
npx tsx bench/replicas.ts
# a small store here; `npm run bench:query-scale` alone seeds 1M (BENCH_CALLS sets the size)
BENCH_CALLS=${BENCH_QS_CALLS:-100000} npx tsx bench/query-scale.ts
# Citus (a coordinator and two workers from ../shared/citus) against one PostgreSQL
npx tsx bench/citus.ts
# the traces table during and right after ingest through HTTP (compiled server); 1M calls by default
npm run --silent build:server
BENCH_CALLS=${BENCH_BUSY_CALLS:-1000000} npx tsx bench/busy-ingest.ts
npx tsx bench/rush.ts
npx tsx bench/redaction.ts
npx tsx bench/idle.ts
BENCH_IDLE_STORE=postgres npx tsx bench/idle.ts
# agent spans through OTLP and the agents pages' reads (compiled server); 1M spans as the issue asks
BENCH_AGENT_SPANS=${BENCH_AGENT_SPANS:-1000000} npx tsx bench/agents.ts
# a 50,000-call trace in the trace view: its API requests and the page in Chromium (compiled server)
npx tsx bench/big-trace.ts
