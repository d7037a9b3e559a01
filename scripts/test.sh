#!/usr/bin/env bash
# Runs every test file with node's test runner (Node 20's --test does not expand globs).
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s globstar nullglob
files=(test/**/*.test.ts)
if [ "${#files[@]}" -eq 0 ]; then
  echo "no test files found" >&2
  exit 1
fi
exec node --import tsx --test --test-concurrency="${TEST_CONCURRENCY:-2}" --test-timeout=600000 "$@" "${files[@]}"
