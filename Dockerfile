# The gateway as one image, built from the same lock file as CI (Node 20, npm ci).
# Build: docker build -t data-platform-gateway .   Run with docker-compose.yml, or alone with
# DATABASE_URL and friends (docs/configuration.md). Not built on the project's own machines (no Docker there).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# Prisma client, GraphQL resolver types and the GraphiQL bundle; then drop the dev dependencies.
RUN npm run generate && npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/app/.data
WORKDIR /app
COPY --from=build --chown=node:node /app /app
RUN mkdir -p /app/.data && chown node:node /app/.data
USER node
EXPOSE 3000
# Ready once the database answers (GET /readyz); the orchestrator restarts or drains on failure.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1 and handles SIGTERM: it stops taking requests, finishes running ones and
# closes the database pool (src/main.ts; 10 s at most), within compose's stop_grace_period.
CMD ["node", "--enable-source-maps", "dist/src/main.js"]
