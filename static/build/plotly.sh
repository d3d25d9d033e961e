#!/usr/bin/env bash
# Builds static/vendor/plotly.min.js (and plotly.css, its stylesheet for a CSP without
# inline styles) from the plotly.js npm package pinned in package-lock.json, with only the
# traces in entry.js. The result is committed, so a clone needs neither node nor npm; run
# this (make plotly) after changing the version or the traces.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
vendor=$here/../vendor
work=${PLOTLY_BUILD_DIR:-$here/../../var/plotly-build}
command -v npm >/dev/null || { echo "plotly.sh: npm is needed (apt-get install npm)" >&2; exit 1; }
mkdir -p "$work"
cp "$here/package.json" "$here/package-lock.json" "$here/entry.js" "$work/"
cd "$work"
npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
version=$(node -p 'require("plotly.js/package.json").version')
node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --global-name=Plotly \
  --target=es2018 --define:global=window --define:define.amd=false \
  --alias:stream=stream-browserify --external:maplibre-gl/dist/maplibre-gl.css \
  --legal-comments=none --log-level=warning \
  --banner:js="/* plotly.js $version (MIT), partial bundle: core + bar; built by static/build/plotly.sh */" \
  --outfile="$vendor/plotly.min.js"
cp node_modules/plotly.js/dist/plotly.css "$vendor/plotly.css"
if grep -q "new Function" "$vendor/plotly.min.js"; then
  echo "plotly.sh: the bundle uses a function constructor; the CSP would block it" >&2
  exit 1
fi
echo "static/vendor/plotly.min.js: plotly.js $version, $(wc -c <"$vendor/plotly.min.js") bytes"
