#!/usr/bin/env bash
# Builds a release of readybell into OUT: the service's TypeScript sources and browser files, the
# staff page built, and the production dependencies installed from the lockfile. The folder runs
# with `bin/readybell.js serve` on any Node 24 and nothing else: no devDependency is needed at
# run time and nothing is compiled at start (Node strips the types as it loads each file).
#
#   npm ci && npm run release -- OUT        (or scripts/release.sh OUT)
#   scripts/release.sh --lean OUT            without the OpenTelemetry packages (no tracing)
#
# --lean leaves out the optionalDependencies, which are the OpenTelemetry SDK and instrumentations
# (decision 0070): about 50 MB less, and OTEL_* then gets a warning instead of traces.
#
# OUT must be empty or not exist, and lie outside this repository: Node looks for packages in
# every node_modules above a file, and the repository's holds the devDependencies.
#
# Needs this repository's dev install (`npm ci`) for the staff page's build (vite, preact) and the
# customer page's icons (sharp). The Dockerfile's build stage runs exactly this, and CI builds and
# starts its output (scripts/release-smoke.ts).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
omit=(--omit=dev)
if [[ ${1:-} == --lean ]]; then omit+=(--omit=optional); shift; fi
[[ $# -eq 1 && -n $1 ]] || { echo "usage: scripts/release.sh [--lean] OUT   (e.g. npm run release -- /tmp/readybell)" >&2; exit 2; }
out=$(realpath -m "$1")
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

# The lockfile pins every package; `npm ci` refuses a package.json that disagrees with it, so the
# dependency lists stay as they are. Only the scripts change: the repository's need dev tools
# (vite, tsc, the `prepare` that builds packages/webhooks for library users).
cp package-lock.json "$out/"
node -e '
  const fs = require("node:fs");
  const [from, to] = process.argv.slice(1);
  const pkg = JSON.parse(fs.readFileSync(from, "utf8"));
  delete pkg.exports;
  delete pkg.files;
  pkg.scripts = { start: "bin/readybell.js serve", cli: "bin/readybell.js" };
  fs.writeFileSync(to, JSON.stringify(pkg, null, 2) + "\n");
' package.json "$out/package.json"

echo "release: production dependencies${omit[1]:+ without the optional (tracing) ones}"
# --ignore-scripts: no production dependency has an install script (a test checks the lockfile),
# and the release's own package.json has none to run.
(cd "$out" && npm ci "${omit[@]}" --ignore-scripts --no-audit --no-fund --loglevel=error)
# npm skips an optional package whose `engines` the running Node does not meet, with a mere
# warning: an npm run by an older Node would make a full release lean without a word.
if [[ -z ${omit[1]:-} && ! -e $out/node_modules/@opentelemetry/sdk-node/package.json ]]; then
  echo "release: npm left out the tracing packages (optionalDependencies); run it with Node 24 ($(node --version) here)" >&2
  exit 1
fi

echo "release: $(du -sh "$out" | cut -f1) in $out"
