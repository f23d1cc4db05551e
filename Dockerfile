# syntax=docker/dockerfile:1
# Multi-stage: build with dev dependencies, run on Node 24 slim as the non-root
# `node` user with production dependencies only. Serves Streamable HTTP on
# GSC_HTTP_PORT (3000 unless overridden), bound to 0.0.0.0 inside the
# container, which makes GSC_HTTP_TOKEN mandatory (the server refuses to start
# without it). Publish it on the host's loopback unless other machines should
# reach it, and keep the token: clients send it as a bearer token.
#
#   export GSC_HTTP_TOKEN=$(openssl rand -hex 24)
#   docker build -t google-search-console-mcp .
#   docker run -p 127.0.0.1:3000:3000 -e GSC_HTTP_TOKEN -e GSC_SERVICE_ACCOUNT_KEY=… google-search-console-mcp
#
# test/dockerfile.e2e.spec.ts replays this file without a Docker engine; it
# refuses instructions it does not understand, so keep to the ones it knows.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are here; the
# build is the explicit step below. The npm cache stays out of the layers.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig*.json ./
COPY scripts ./scripts
COPY src ./src
RUN npm run build

FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    GSC_TRANSPORT=http \
    GSC_HTTP_HOST=0.0.0.0 \
    GSC_HTTP_PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only, and no lifecycle scripts: `prepare` needs the
# TypeScript compiler, which is a dev dependency. The bin's bundle carries Nest,
# so Nest (a peer dependency for the library entry) is not needed here.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts --no-audit --no-fund
# The OpenTelemetry SDK, so that OTEL_EXPORTER_OTLP_ENDPOINT turns tracing on in
# the image (it is an optional peer dependency of the npm package, too large to
# install with it). `npm ci` cannot pick packages by name (--include takes
# dependency types) and the lockfile has these as dev dependencies (the tests
# use them), so --omit=dev left them out: add the @opentelemetry/* peers at the
# versions package.json pins, as production packages, writing neither
# package.json nor the lockfile; their own dependencies come from the lockfile.
RUN --mount=type=cache,target=/root/.npm npm install --no-save --save-prod --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error \
      $(node -p "const p = require('./package.json'); Object.keys(p.peerDependencies).filter((n) => n.startsWith('@opentelemetry/')).map((n) => n + '@' + p.peerDependencies[n]).join(' ')")
COPY --from=build /app/dist ./dist
# The MCP registry entry: the server card (GET /mcp/server-card) is generated from it.
COPY server.json ./
USER node
EXPOSE 3000
# Reads GSC_HTTP_PORT, GSC_HTTP_HOST and (when set) GSC_ADMIN_TOKEN from the
# container's environment and asks /admin/health; see src/healthcheck.ts.
HEALTHCHECK --interval=30s --timeout=5s --start-period=15s --retries=3 CMD ["node", "dist/healthcheck.js"]
# The same V8 flag as dist/main.js's #! line: see the comment there.
ENTRYPOINT ["node", "--max-semi-space-size=16", "dist/main.js"]
