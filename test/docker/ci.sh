#!/bin/sh
# The container suite, for CI on a fresh machine (as root; .ci/run calls it after `npm ci`):
# installs docker.io and debootstrap if missing, starts dockerd if none runs (no bridge network:
# builds use the host network, containers none), makes the stand-in Node base image
# (base-image.sh), builds the repository's Dockerfile on it and runs test/docker/*.test.ts.
set -eu
cd "$(dirname "$0")/../.."
started=$(date +%s)
BASE=kanban-supervisor-test/node:24
IMAGE=kanban-supervisor-test/app

missing=""
command -v dockerd >/dev/null 2>&1 || missing="$missing docker.io"  # the machine may have the docker client alone
command -v debootstrap >/dev/null 2>&1 || missing="$missing debootstrap"
if [ -n "$missing" ]; then
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi

if ! docker info >/dev/null 2>&1; then
  dockerd --iptables=false --ip6tables=false --bridge=none >/var/log/kanban-supervisor-dockerd.log 2>&1 &
  waited=0
  until docker info >/dev/null 2>&1; do
    waited=$((waited + 1))
    if [ "$waited" -gt 60 ]; then tail -n 20 /var/log/kanban-supervisor-dockerd.log >&2; echo "test/docker/ci.sh: dockerd did not start in 60 s" >&2; exit 1; fi
    sleep 1
  done
fi

test/docker/base-image.sh "$BASE"
based=$(date +%s)
docker build --quiet --network host --build-arg NODE_IMAGE="$BASE" -t "$IMAGE" . >/dev/null
built=$(date +%s)
KS_DOCKER_IMAGE=$IMAGE npx vitest run --config test/docker/vitest.config.ts
echo "test/docker/ci.sh: $(( $(date +%s) - started )) s (base image $(( based - started )) s, docker build $(( built - based )) s, tests $(( $(date +%s) - built )) s)"
