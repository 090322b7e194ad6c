# syntax=docker/dockerfile:1
# a2a-bench green agent image (AgentBeats conventions: ENTRYPOINT takes --host/--port/--card-url,
# port 9009, curl for the compose healthcheck, linux/amd64).
# The build steps live in .ci/image-steps so CI runs them without a Docker engine too.
#   docker build --platform linux/amd64 -t a2a-bench-green .
#   docker run --rm -p 9009:9009 a2a-bench-green --host 0.0.0.0 --port 9009 --card-url http://localhost:9009/

ARG NODE_IMAGE=node:20-bookworm-slim

# ---- build: all dependencies, compile TypeScript ----
FROM --platform=linux/amd64 ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY .ci/image-steps .ci/image-steps
COPY src src
COPY schemas schemas
COPY scenario_smi scenario_smi
RUN .ci/image-steps build /app

# ---- runtime: production dependencies only, non-root ----
FROM --platform=linux/amd64 ${NODE_IMAGE} AS runtime
# curl: AgentBeats' healthcheck; python3 + bubblewrap: the local sandbox.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl ca-certificates python3 bubblewrap \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
# The image listens on 0.0.0.0 inside a compose network (AgentBeats): without this opt-in the green agent
# refuses to listen beyond loopback with no GREEN_AUTH_TOKEN. Set GREEN_AUTH_TOKEN when the port is published.
ENV GREEN_ALLOW_UNAUTHENTICATED=1
WORKDIR /app
COPY package.json package-lock.json ./
COPY .ci/image-steps .ci/image-steps
RUN .ci/image-steps runtime /app
COPY --from=build /app/dist dist
COPY schemas schemas
COPY scenario_smi scenario_smi
RUN mkdir -p /app/results && chown -R node:node /app/results
USER node
EXPOSE 9009
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD curl -fsS http://localhost:9009/.well-known/agent-card.json >/dev/null || exit 1
ENTRYPOINT ["node", "dist/cli.js", "green"]
CMD ["--host", "0.0.0.0", "--port", "9009"]
