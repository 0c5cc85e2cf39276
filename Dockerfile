# kanban-supervisor in a container: the board is mounted at /board (docs/off-the-laptop.md).
#   docker build -t kanban-supervisor .
#   docker run --rm -v "$PWD:/board" kanban-supervisor            # runs ./kanban.yaml
#   docker run --rm -v "$PWD:/board" kanban-supervisor status
# Build arguments:
#   NODE_IMAGE  an official Node LTS image, 22 or 24 (default node:24-slim).
#   AGENT_CLIS  the agent CLIs to install beside it from npm, each pinned to an exact version (the
#               versions test/clis runs them at), e.g. --build-arg
#               AGENT_CLIS="@anthropic-ai/claude-code@2.1.332 @openai/codex@0.171.0 @google/gemini-cli@0.61.0"
#               None by default: a board of shell roles needs none.
ARG NODE_IMAGE=node:24-slim

# Pack the package as it is published (prepack builds dist/); nothing of the build reaches the image.
FROM ${NODE_IMAGE} AS pack
WORKDIR /src
COPY package.json package-lock.json ./
# No install scripts: none is needed to build, and none then downloads anything into the build.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN mkdir /pack && npm pack --pack-destination /pack

FROM ${NODE_IMAGE}
# tini as pid 1: it reaps the orphans agents leave behind (they are re-parented to pid 1) and
# forwards docker stop's SIGTERM to the supervisor, which then stops its agent and exits 143.
# git: for supervisor.git_commit and for agents; ca-certificates: for git over https.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends tini git ca-certificates \
 && rm -rf /var/lib/apt/lists/*
ARG AGENT_CLIS=""
# An unpinned CLI would be whatever its registry serves on the day of the build.
RUN for cli in $AGENT_CLIS; do \
      case "${cli#@}" in \
        *@[0-9]*.[0-9]*.[0-9]*) ;; \
        *) echo "AGENT_CLIS: pin $cli to an exact version (name@1.2.3)" >&2; exit 2 ;; \
      esac; \
    done
COPY --from=pack /pack/ /tmp/pack/
RUN npm install -g --omit=dev --no-audit --no-fund /tmp/pack/kanban-supervisor-*.tgz ${AGENT_CLIS} \
 && rm -rf /tmp/pack && npm cache clean --force
# Any --user "$(id -u):$(id -g)" gets a home it can write (agent CLIs keep their logins and
# settings there, the supervisor its shared limit state); mount a login folder under it to use one.
ENV HOME=/home/kanban
RUN mkdir -m 1777 /home/kanban
# The image's name as its messages show it ("mount the board's folder: docker run … kanban-supervisor").
ENV KANBAN_SUPERVISOR_IMAGE=kanban-supervisor
WORKDIR /board
ENTRYPOINT ["/usr/bin/tini", "--", "kanban-supervisor"]
