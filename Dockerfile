# The gateway as one image: compiled JavaScript and production dependencies only, on the current
# Node LTS, running as an unprivileged user that cannot change the application's files.
# Build: docker build -t data-platform-gateway .   Run with docker-compose.yml, or alone with
# DATABASE_URL and friends (docs/configuration.md). Not built on the project's own machines (no
# Docker there): test/deploy/image.test.ts checks this file's promises instead.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# Prisma client, GraphQL types, the GraphiQL bundle, then the compiled gateway (dist/); then drop
# the dev dependencies.
RUN npm run generate && npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
# Only what runs: compiled code, production dependencies (with the generated Prisma client), and the
# files the gateway reads (SDL, migrations, policy, operations, web assets). Owned by root, so the
# runtime user can read them but not change them. No tests, benchmarks or sources.
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/graphql ./graphql
COPY --from=build /app/prisma ./prisma
COPY --from=build /app/config ./config
COPY --from=build /app/web ./web
COPY --from=build /app/persisted-operations.json ./persisted-operations.json
RUN mkdir -p /data && chown node:node /data
# The embedded PostgreSQL (when DATABASE_URL is unset), object store and outbox live here.
VOLUME ["/data"]
USER node
EXPOSE 3000
# Ready once the database answers (GET /readyz); the orchestrator restarts or drains on failure.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1 and handles SIGTERM: it stops taking requests, finishes running ones and
# closes the database pool (src/main.ts; 10 s at most), within compose's stop_grace_period.
# The heap flag is npm start's (package.json; README "Memory"): the heap grows by half its live
# size between collections instead of V8's up-to-fourfold.
CMD ["node", "--heap-growing-percent=50", "--enable-source-maps", "dist/src/main.js"]
