#!/bin/bash
# `bench/ab-18/run.sh <variants dir> <scenario> <rounds> <variant>...`: interleaved A/B rounds of
# variants made by make-variants.mjs, 10 s each after a 3 s warm-up, on bench/profiles/seeded.db,
# one line per run: scenario, variant, round, CPU ms/request, errors, req/s. PROFILE_RATE (e.g.
# 300) fixes the request rate, which the PUT needs: its CPU per request depends on its rate.
# A variant named `<name>:Warn` runs <name> with LOG_LEVEL=Warn.
set -e
cd "$(dirname "$0")/../.."
dir=$1; scenario=$2; rounds=$3; shift 3
out=$(mktemp -d)
for round in $(seq "$rounds"); do
  for spec in "$@"; do
    v=${spec%%:*}; level=Info; [ "$spec" != "$v" ] && level=${spec#*:}
    PROFILE_LOG_LEVEL=$level PROFILE_NO_PROFILE=1 PROFILE_ROUNDS=1 PROFILE_ROOT="$dir/$v" PROFILE_OUT="$out/$spec-$round" \
      PROFILE_DB=bench/profiles/seeded.db node bench/profile.mjs "$scenario" 10 > /dev/null 2>&1
    node -e 'const j = require(process.argv[1]); console.log([process.argv[2], process.argv[3], process.argv[4], j.best["CPU ms/req"].toFixed(4), j.best.errors, j.best["req/s"]].join(" "))' \
      "$(ls "$out/$spec-$round"/*.json | head -1)" "$scenario" "$spec" "$round"
  done
done
rm -rf "$out"
