#!/usr/bin/env bash
# The whole test suite: type check, then every test file under test/ (unit, routes, store
# contract, official clients). Client tests install what they need (virtualenv, pip packages);
# with CI=true nothing is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc --noEmit -p .
mapfile -t files < <(find test -name '*.test.ts' | sort)
node --import tsx --test --test-concurrency="${HEDDLE_TEST_CONCURRENCY:-2}" "${files[@]}"
