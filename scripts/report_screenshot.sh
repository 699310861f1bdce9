#!/usr/bin/env bash
# A full-page PNG of a results folder's report.html, as a browser first shows it (1280 px wide):
#   bash scripts/report_screenshot.sh DIR [OUT.png]      (OUT.png defaults to DIR/report.png)
# It opens the report in Debian's headless chromium through playwright-core (tests/browser/inspect_report.mjs),
# test-only installs that `NOVELTYGRID_SETUP_BROWSER=1 bash scripts/setup.sh` makes.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
setup="NOVELTYGRID_SETUP_BROWSER=1 bash scripts/setup.sh"
fail() { echo "report_screenshot: $*" >&2; exit 1; }

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: bash scripts/report_screenshot.sh DIR [OUT.png]" >&2
  exit 2
fi
dir=$1
out=${2:-$dir/report.png}
[ -f "$dir/report.html" ] || fail "$dir/report.html not found (\`noveltygrid report $dir\` writes it)"
chromium=${NOVELTYGRID_CHROMIUM:-/usr/bin/chromium}
[ -x "$chromium" ] || fail "$chromium is not installed; install it with \`$setup\` (from $root)"
command -v node >/dev/null || fail "node is not installed; install it with \`$setup\` (from $root)"
[ -d "$root/tests/browser/node_modules/playwright-core" ] ||
  fail "tests/browser/node_modules has no playwright-core; run \`$setup\` (from $root)"

node "$root/tests/browser/inspect_report.mjs" "$dir/report.html" --screenshot "$out" >/dev/null
echo "report_screenshot: wrote $out" >&2
