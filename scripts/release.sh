#!/usr/bin/env bash
# Builds a release of readybell into OUT: the service's TypeScript sources and browser files, the
# staff page built, and the production dependencies installed from the lockfile. The folder runs
# with `bin/readybell.js serve` on any Node 24 and nothing else: no devDependency is needed at
# run time and nothing is compiled at start (Node strips the types as it loads each file).
#
#   npm ci && npm run release -- OUT        (or scripts/release.sh OUT)
#   scripts/release.sh --lean OUT            without the OpenTelemetry packages (no tracing)
#   scripts/release.sh --help                this text's usage line
#
# --lean leaves out the OpenTelemetry SDK and instrumentations (TRACING_PACKAGES in
# src/telemetry/sdk.ts, decision 0070): about 45 MB less, and OTEL_* then gets a warning instead of
# traces.
#
# The dependencies are installed, then what no running service reads is removed from them: type
# declarations and TypeScript sources (Node never strips types under node_modules), source maps
# and Markdown (PRUNED below; licences and package.json files stay). That is about half of their
# space on disk (decision 0077; test/unit/release-size.test.ts measures a release with this rule).
#
# OUT must be empty or not exist, and lie outside this repository: Node looks for packages in
# every node_modules above a file, and the repository's holds the devDependencies.
#
# Needs this repository's dev install (`npm ci`) for the staff page's build (vite, preact) and the
# customer page's icons (sharp). The Dockerfile's build stage runs exactly this, and CI builds and
# starts its output (scripts/release-smoke.ts).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage="usage: scripts/release.sh [--lean] OUT   (e.g. npm run release -- /tmp/readybell)"
lean=false
case ${1:-} in
  -h | --help) echo "$usage"; exit 0 ;;
  --lean) lean=true; shift ;;
esac
# Anything else that looks like an option is a mistake, never a folder's name.
[[ $# -eq 1 && -n $1 && $1 != -* ]] || { echo "$usage" >&2; exit 2; }
# The file name suffixes removed from the installed dependencies (read by test/unit/release-size.test.ts).
PRUNED=".ts .mts .cts .map .md .markdown"
out=$(realpath -m -- "$1")
[[ $out/ != "$root"/* ]] || { echo "release: $out is inside the repository, whose node_modules would stand in for missing packages" >&2; exit 1; }
mkdir -p "$out"
[[ -z $(ls -A "$out") ]] || { echo "release: $out is not empty" >&2; exit 1; }
[[ -e $root/node_modules/vite/package.json ]] || { echo "release: run npm ci first (the staff page is built with vite, the icons with sharp)" >&2; exit 1; }
cd "$root"

echo "release: sources into $out"
cp -R bin src "$out/"
# web/ holds the browser files read at start (the customer page's and the board's stylesheets, the
# service worker, Web Push, the icon); the staff page and the two pages' scripts are TypeScript
# sources, shipped only as their builds.
mkdir -p "$out/web/customer" "$out/web/board"
cp -R web/icon.svg web/push "$out/web/"
cp web/customer/customer.css web/customer/sw.js "$out/web/customer/"
cp web/board/board.css "$out/web/board/"

echo "release: staff page, customer page and board scripts, home-screen icons"
npm run --silent build:staff -- --outDir "$out/dist/web/staff"
npm run --silent build:pages -- "$out/dist/web/pages"
npm run --silent build:icons -- "$out/dist/web/icons"

# The lockfile pins every package. A full release keeps the dependency lists as they are (`npm ci`
# refuses a package.json that disagrees with the lockfile); a lean one drops the tracing packages
# from its package.json and lets `npm install` prune them, every other version still the lockfile's.
# The scripts change either way: the repository's need dev tools (vite, tsc, the `prepare` that
# builds packages/webhooks for library users).
cp package-lock.json "$out/"
# The list is TypeScript's, read with the pinned Node where npm linked it (a checkout), else the
# one on PATH (the image's build stage installs with --ignore-scripts, on Node 24).
tracing=
if [[ $lean == true ]]; then
  node24=$root/node_modules/.bin/node
  [[ -x $node24 ]] || node24=node
  tracing=$("$node24" --input-type=module \
    -e "const { TRACING_PACKAGES } = await import('$root/src/telemetry/sdk.ts'); console.log(TRACING_PACKAGES.join(' '))")
fi
node -e '
  const fs = require("node:fs");
  const [from, to, lean, tracing] = process.argv.slice(1);
  const pkg = JSON.parse(fs.readFileSync(from, "utf8"));
  delete pkg.exports;
  delete pkg.files;
  pkg.scripts = { start: "bin/readybell.js serve", cli: "bin/readybell.js" };
  if (lean === "true") for (const name of tracing.split(" ")) delete pkg.dependencies[name];
  fs.writeFileSync(to, JSON.stringify(pkg, null, 2) + "\n");
' package.json "$out/package.json" "$lean" "$tracing"

# --ignore-scripts: no production dependency has an install script (a test checks the lockfile),
# and the release's own package.json has none to run.
if [[ $lean == true ]]; then
  echo "release: production dependencies without the tracing ones ($tracing)"
  (cd "$out" && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
else
  echo "release: production dependencies"
  (cd "$out" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
fi

prune=()
for suffix in $PRUNED; do prune+=(${prune[@]:+-o} -iname "*$suffix"); done
echo "release: removing what no running service reads from the dependencies ($PRUNED)"
find "$out/node_modules" -type f \( "${prune[@]}" \) -delete

echo "release: $(du -sh "$out" | cut -f1) in $out"
