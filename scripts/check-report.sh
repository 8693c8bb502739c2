#!/usr/bin/env bash
# Renders an HTML report (--report) in headless Chromium, checks in the page as
# Chromium parsed it that every mode has its timeline and every time chart one
# shaded band per fault, and saves a screenshot to look at: the file is
# self-contained, so nothing is fetched.
#   scripts/check-report.sh [report.html] [out.png]
# Without a report, makes one first from issue 20's run: every mode, a stall and
# a slowed consumer (~20 s). Needs Debian's chromium (apt-get install chromium).
# A manual check, not part of npm test.
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:-}
out=${2:-report.png}
if [ -z "$report" ]; then
  report=$(mktemp --suffix=.html)
  node packages/orchestrator/bin/orchestrator.js --consumers 4 --stall consumer-2@1-3 --slow consumer-4@0.5-2.5:80 --duration 1 \
    --report "$report" --log-level warn > /dev/null
fi
command -v chromium > /dev/null || { echo "check-report: chromium not found; apt-get install chromium" >&2; exit 2; }
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
browse() {
  chromium --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update \
    --disable-sync --no-first-run --user-data-dir="$profile" "$@" "file://$(realpath "$report")" 2> /dev/null
}
# What Chromium built from the file: one timeline per mode; in every time chart and timeline, one band per fault.
dom=$(browse --dump-dom)
modes=$(grep -o '<h2>[^<]*: <span' <<< "$dom" | wc -l)
timelines=$(grep -o '<svg class="timeline"' <<< "$dom" | wc -l)
# Each mode's legend says how many faults it shades (data-faults): two time charts and the timeline each hold one band per fault.
expected=$(( 3 * $(grep -o 'data-faults="[0-9]*"' <<< "$dom" | grep -o '[0-9]*' | awk '{ s += $1 } END { print s + 0 }') ))
bands=$(grep -o 'class="fault-band"' <<< "$dom" | wc -l)
[ "$timelines" -eq "$modes" ] || { echo "check-report: $modes modes but $timelines timelines" >&2; exit 1; }
[ "$bands" -eq "$expected" ] || { echo "check-report: $bands fault bands, expected $expected (one per fault on each of 3 time drawings per mode)" >&2; exit 1; }
browse --window-size=1400,5600 --screenshot="$(realpath -m "$out")"
[ -s "$out" ] || { echo "check-report: chromium wrote no screenshot" >&2; exit 1; }
echo "check-report: $report rendered to $out: $modes modes, each with its timeline; $bands fault bands, one per fault on each time drawing"
