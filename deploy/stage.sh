#!/usr/bin/env bash
# Makes the build context of deploy/Containerfile from this checkout's build, so the image build
# only copies files (seconds) instead of compiling better-sqlite3 and the web app (minutes):
#
#   npm run build && deploy/stage.sh /tmp/heddle-context
#
# The context holds app/ (dist/, web/dist/, package.json and a production node_modules made by
# `npm ci --omit=dev` from package-lock.json), data/ (the empty volume folder) and healthcheck.mjs.
# better-sqlite3's native addon is the one `npm ci` compiled in this checkout for this Node and
# glibc (the image's Node must be the same major version, and its Debian the same release);
# without it, it is compiled here.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: deploy/stage.sh OUT_DIR}"
for built in dist/main.js web/dist/index.html; do
  [[ -f "$root/$built" ]] || { echo "deploy/stage.sh: $built is missing; run npm run build first" >&2; exit 1; }
done
rm -rf "$out"
mkdir -p "$out/app/web" "$out/data"
cp "$root/deploy/Containerfile" "$root/deploy/healthcheck.mjs" "$out/"
cp "$root/package.json" "$root/package-lock.json" "$out/app/"
# source maps and declaration files are for debugging the checkout, not for the server
cp -r "$root/dist" "$out/app/dist"
find "$out/app/dist" -type f \( -name '*.map' -o -name '*.d.ts' \) -delete
cp -r "$root/web/dist" "$out/app/web/dist"

# --ignore-scripts: the only install script of a production dependency is better-sqlite3's build
(cd "$out/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
# npm 10 may exit 0 with an empty node_modules ("Exit handler never called!"): check the result
for pkg in fastify better-sqlite3 @tensorflow/tfjs-backend-wasm pg; do
  [[ -f "$out/app/node_modules/$pkg/package.json" ]] || { echo "deploy/stage.sh: npm ci left out $pkg" >&2; exit 1; }
done
addon=build/Release/better_sqlite3.node
if [[ -f "$root/node_modules/better-sqlite3/$addon" ]]; then
  mkdir -p "$out/app/node_modules/better-sqlite3/build/Release"
  cp "$root/node_modules/better-sqlite3/$addon" "$out/app/node_modules/better-sqlite3/$addon"
else
  (cd "$out/app" && npm rebuild better-sqlite3 --loglevel=error)
fi
# what a running server never reads: the addon's C sources (9 MB), maps, docs, type declarations
(
  cd "$out/app/node_modules"
  rm -rf better-sqlite3/deps better-sqlite3/src
  find . -type f \( -name '*.map' -o -name '*.d.ts' -o -name '*.md' -o -name '*.markdown' \) -delete
  find . -depth -type d \( -name test -o -name tests -o -name __tests__ -o -name docs \) -exec rm -rf {} +
  # Node loads each @tensorflow package's `main` bundle (dist/*.node.js) and the WASM binaries;
  # the per-module ES files and browser bundles beside them are 60 MB it never reads
  find @tensorflow/*/dist -mindepth 1 -maxdepth 1 ! -name '*.node.js' ! -name '*.wasm' -exec rm -rf {} +
  # core-js: browser polyfills of tfjs's browser bundle; emojibase-data: only English is read
  # (src/domain/emoji.ts)
  rm -rf core-js
  find emojibase-data -mindepth 1 -maxdepth 1 ! -name en ! -name package.json ! -name LICENSE -exec rm -rf {} +
  find emojibase-data/en -mindepth 1 ! -name data.json -exec rm -rf {} +
)
rm "$out/app/package-lock.json"
echo "deploy/stage.sh: context in $out ($(du -sh "$out" | cut -f1))"
