#!/usr/bin/env bash
# The whole test suite: type check, then every test file under test/ (unit, routes, store
# contract, official clients). Client tests install what they need (virtualenv, pip packages);
# with CI=true nothing is skipped.
#
# Then the HTTP suite (test/routes, test/security) runs a second time on PostgreSQL
# (HEDDLE_TEST_STORE=postgres), so both stores answer every request the same way. The store
# contract suite and the two-node test already run on PostgreSQL in the first pass.
# test/helpers/postgres-server.ts installs (apt-get) and starts PostgreSQL when none answers;
# HEDDLE_TEST_POSTGRES_URL points at another server. Outside CI, HEDDLE_TEST_SKIP_POSTGRES=1
# leaves the second pass out.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc --noEmit -p .
concurrency="${HEDDLE_TEST_CONCURRENCY:-2}"
mapfile -t files < <(find test -name '*.test.ts' | sort)
node --import tsx --test --test-concurrency="$concurrency" "${files[@]}"
if [[ "${HEDDLE_TEST_SKIP_POSTGRES:-}" == 1 && "${CI:-}" != true ]]; then
  echo "HTTP suite on PostgreSQL skipped (HEDDLE_TEST_SKIP_POSTGRES=1)"
  exit 0
fi
mapfile -t http < <(find test/routes test/security -name '*.test.ts' | sort)
HEDDLE_TEST_STORE=postgres node --import tsx --test --test-concurrency="$concurrency" "${http[@]}"
