#!/usr/bin/env bash
# Renders an HTML report (--report) in headless Chromium and saves a screenshot,
# to check it displays with no network: the file is self-contained.
#   scripts/check-report.sh [report.html] [out.png]
# Without a report, makes one from a short run first. Needs Debian's chromium
# (apt-get install chromium).
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:-}
out=${2:-report.png}
if [ -z "$report" ]; then
  report=$(mktemp --suffix=.html)
  node packages/orchestrator/bin/orchestrator.js --duration 1 --consumers 4 --stall consumer-2,consumer-4 --report "$report" --log-level warn > /dev/null
fi
command -v chromium > /dev/null || { echo "check-report: chromium not found; apt-get install chromium" >&2; exit 2; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
  --disable-sync --no-first-run --user-data-dir="$profile" --window-size=1400,2600 \
  --screenshot="$(realpath -m "$out")" "file://$(realpath "$report")" 2> /dev/null
[ -s "$out" ] || { echo "check-report: chromium wrote no screenshot" >&2; exit 1; }
echo "check-report: $report rendered to $out"
