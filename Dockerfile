# syntax=docker/dockerfile:1
# a2a-bench images, one Dockerfile, four targets:
#   runner  the base of the green image: Node + this package (production and optional deps: esbuild-wasm
#           for SPARC TypeScript cases, @e2b/code-interpreter for --sandbox e2b) + what the benchmark
#           runners call (git, python3, pytest, psutil/requests for RedCode, bubblewrap for the local
#           sandbox, patch) + curl for the healthcheck + tini as PID 1; non-root user `node` (uid 1000).
#   green   runner + ENTRYPOINT `a2a-bench green`      (AgentBeats: --host --port --card-url, port 9009)
#   purple  Node + this package + curl + tini only; ENTRYPOINT `a2a-bench purple`
# No platform is pinned: the image is built for the engine's platform, or for each one given to
# `docker buildx build --platform linux/amd64,linux/arm64` (every dependency is JavaScript, WebAssembly
# or a Debian package, so nothing here depends on TARGETPLATFORM). AgentBeats runs linux/amd64.
#
#   docker build --target green  -t a2a-bench-green .
#   docker build --target purple -t a2a-bench-purple .
#   docker run --rm -p 9009:9009 a2a-bench-green --host 0.0.0.0 --port 9009 --card-url http://localhost:9009/
#
# NODE_IMAGE: any Debian bookworm image with node + npm in /usr/local and a user `node` (uid 1000), i.e.
# the public node:20-bookworm-slim or the local stand-in `.ci/local-node-base` makes where no registry is
# reachable. The build runs `npm ci` and `apt-get` in its RUN steps: it needs the npm registry and a
# Debian mirror (an engine without a default bridge: `docker build --network host`).
# The npm steps live in .ci/image-steps so they can be run and checked outside Docker too.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: all dependencies, compile TypeScript ----
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY .ci/image-steps .ci/image-steps
COPY src src
COPY schemas schemas
COPY scenario_smi scenario_smi
# The build writes the schemas' registry parts (formatted as the repository's Prettier config says), generates
# the schema validators (dist/validators) from schemas/, and checks the config reference against the schema.
COPY .prettierrc.json .prettierignore ./
COPY scripts/generate-schemas.mjs scripts/generate-validators.mjs scripts/
COPY docs/config-reference.md docs/config-reference.md
RUN .ci/image-steps build /app

# ---- production node_modules only (no TypeScript compile: that is the build stage's job) ----
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY .ci/image-steps .ci/image-steps
RUN .ci/image-steps runtime /app

# ---- agent: Node + the package, curl (healthcheck), tini (PID 1: forwards signals, reaps orphans) ----
FROM ${NODE_IMAGE} AS agent
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
# This image holds the package (/app: dist/ with the embedded sample datasets, node_modules): the docker
# sandbox refuses to run untrusted jobs in an image carrying this label (src/sandbox/docker/job-image.ts).
LABEL org.a2a-bench.holds-package="/app"
# The image listens on 0.0.0.0 inside a compose network (AgentBeats): without this opt-in the green agent
# refuses to listen beyond loopback with no GREEN_AUTH_TOKEN. Set GREEN_AUTH_TOKEN when the port is published.
ENV GREEN_ALLOW_UNAUTHENTICATED=1
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=prod-deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY schemas schemas
COPY scenario_smi scenario_smi
# The run viewer's page files (a2a-bench view serves them as they are).
COPY src/view/static src/view/static
# The only place the agents write (GREEN_RESULTS_DIR defaults to ./results); everything else stays root-owned.
RUN mkdir -p /app/results && chown node:node /app/results
EXPOSE 9009
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS http://localhost:9009/.well-known/agent-card.json >/dev/null || exit 1

# ---- runner: the agent plus what benchmark runs execute ----
FROM agent AS runner
# git + patch + python3-pytest: SWE-bench test beds; python3-psutil/-requests: RedCode-Exec programs;
# bubblewrap: the local sandbox (util-linux's setpriv/prlimit/unshare are in every Debian image).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      git patch python3 python3-pytest python3-psutil python3-requests bubblewrap \
 && rm -rf /var/lib/apt/lists/* \
 && bwrap --version && git --version && python3 -m pytest --version
USER node

# ---- the docker CLI alone (Debian's docker.io ships it with the engine; only the client is kept) ----
FROM ${NODE_IMAGE} AS docker-cli
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io \
 && /usr/bin/docker --version

# ---- green: the assessor ----
FROM runner AS green
# `sandbox: "docker"` drives the engine at DOCKER_HOST with the docker CLI (an Amber scenario binds
# framework.docker there: amber/green/amber-manifest.json5). Without a DOCKER_HOST nothing uses it.
COPY --from=docker-cli /usr/bin/docker /usr/local/bin/docker
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli.js", "green"]
CMD ["--host", "0.0.0.0", "--port", "9009", "--card-url", "http://localhost:9009/"]

# ---- purple: the participant (echo | gold | openai solver; no sandbox needed) ----
FROM agent AS purple
USER node
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/dist/cli.js", "purple"]
CMD ["--host", "0.0.0.0", "--port", "9009", "--card-url", "http://localhost:9009/", "--mode", "gold"]
