#!/usr/bin/env bash
# Usage: bench/run.sh NAME [args...]   e.g. bench/run.sh checks --checks 200
# Node 20 cannot run TypeScript directly: compile bench/ (and the src it imports), then run.
set -euo pipefail
cd "$(dirname "$0")/.."
name=$1
shift
npm run build --silent
npx tsc -p bench/tsconfig.json
node ".bench-build/bench/$name/main.js" "$@"
