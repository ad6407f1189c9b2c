#!/usr/bin/env bash
# Shared by the hardening stages: builds the livestate binary (debug, the scratch path in
# LIVESTATE_SCRATCH or the package's .build), then runs pytest on the given hardening tests.
# Usage: integration/hardening/stage.sh test_abuse.py [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/../.."
scratch=()
[ -n "${LIVESTATE_SCRATCH:-}" ] && scratch=(--scratch-path "$LIVESTATE_SCRATCH")
if [ -z "${LIVESTATE_BIN:-}" ]; then
    swift build "${scratch[@]}" --product livestate 2>&1 | tail -n 5
    LIVESTATE_BIN="$(swift build "${scratch[@]}" --show-bin-path)/livestate"
    export LIVESTATE_BIN
fi
mkdir -p artifacts
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
file="$1"; shift
exec .venv/bin/python -m pytest -p no:cacheprovider -q -rfEsxX "integration/hardening/$file" \
    --junitxml "artifacts/hardening-${file%.py}.xml" "$@"
