# The service as a container image: `docker build -t loyalty .` (or `docker compose up`, compose.yaml).
# Node 24 LTS (recommended; Node 20.9+ works). Multi-stage: dependencies, build, and a runtime stage holding only
# the standalone server directory (scripts/standalone.mjs), run as a non-root user.
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
# No install scripts: Prisma's would download engines; the client is generated in the build stage without them.
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund --ignore-scripts

FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY --from=deps /app/node_modules ./node_modules
COPY . .
RUN npm run db:generate && npm run build && node scripts/standalone.mjs /standalone

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    HOST=0.0.0.0 \
    PORT=3000
RUN groupadd --system --gid 1001 loyalty \
 && useradd --system --uid 1001 --gid loyalty --home-dir /app --no-create-home loyalty \
 && mkdir -p /app/.data && chown loyalty:loyalty /app/.data
COPY --from=build --chown=loyalty:loyalty /standalone ./
USER loyalty
# The embedded database and the generated session secret, when DATABASE_URL / NEXTAUTH_SECRET are not set.
VOLUME ["/app/.data"]
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: graceful shutdown within SHUTDOWN_TIMEOUT_MS (10 s by default; give `docker stop -t` a little more).
STOPSIGNAL SIGTERM
# Applies pending migrations, then serves with one worker per core (LOYALTY_WORKERS). Tested as is by
# test/integration/front-standalone.test.ts. --max-semi-space-size as in `npm start` (bench/README.md).
CMD ["node", "--max-semi-space-size=32", "dist/main.mjs", "--migrate"]
