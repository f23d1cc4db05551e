# syntax=docker/dockerfile:1
# Multi-stage: build with dev dependencies, run on Node 24 slim as a non-root user
# with production dependencies only. Serves Streamable HTTP on :3000 by default.

FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build

FROM node:24-slim AS runtime
ENV NODE_ENV=production \
    GSC_TRANSPORT=http \
    GSC_HTTP_HOST=0.0.0.0 \
    GSC_HTTP_PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# Binding 0.0.0.0 requires GSC_HTTP_TOKEN (the server refuses to start without it).
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:3000/admin/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
ENTRYPOINT ["node", "dist/main.js"]
