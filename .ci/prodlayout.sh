#!/usr/bin/env bash
# CI: the production process layout without containers (docker/compose.yaml's commands and
# environment, against the local PostgreSQL and Redis), smoke-tested and run twice over (two web
# processes, two workers per queue). Bounded in time; stops every process it started.
set -euo pipefail
cd "$(dirname "$0")/.."
make install >/dev/null
exec timeout --kill-after=30 480 .venv/bin/python .ci/prodlayout.py smoke scale
