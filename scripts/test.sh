#!/usr/bin/env bash
# Runs every test file with node's test runner, the longest first.
set -euo pipefail
cd "$(dirname "$0")/.."
shopt -s globstar nullglob
# The files that take longest start first, so that the run never ends waiting on one of them while the
# other slots sit idle (longest-first scheduling); the rest follow in path order.
longest=(
  test/reliability/fuzz.test.ts
  test/platform/cli.test.ts
  test/calendar/pages.a11y.test.ts
  test/admin/admin.a11y.test.ts
  test/admin/screens.a11y.test.ts
  test/reliability/workers.test.ts
  test/reliability/permissions.test.ts
  test/calendar/caches.differential.test.ts
  test/reliability/webhooks.processes.test.ts
  test/reliability/crash.test.ts
  test/entity-management/docs.test.ts
  test/calendar/caldav.vdirsyncer.test.ts
  test/admin/editor-script.browser.test.ts
)
files=("${longest[@]}")
for file in test/**/*.test.ts; do
  [[ " ${longest[*]} " == *" $file "* ]] || files+=("$file")
done
for file in "${longest[@]}"; do
  [ -f "$file" ] || { echo "scripts/test.sh lists $file, which does not exist" >&2; exit 1; }
done
# The suite hashes hundreds of passwords (users, Basic logins, post passwords): at the lowest cost, every server and
# `almanac` process it starts, a hash takes ~1 ms instead of ~50 (test/helpers/server.ts passes it on).
export PASSWORD_HASH_COST="${PASSWORD_HASH_COST:-10}"
# The tests spawn `almanac` as people run it: from the bundle, built afresh here (~50 ms).
node scripts/bundle.mjs
exec node --import tsx --test --test-concurrency="${TEST_CONCURRENCY:-3}" --test-timeout=600000 "$@" "${files[@]}"
