# syntax=docker/dockerfile:1
#
# One Dockerfile, four images (docs/containers.md):
#
#   docker build --target api      -t svc-api .
#   docker build --target proxy    -t svc-proxy .
#   docker build --target hub      -t svc-hub .
#   docker build --target migrator -t svc-migrator .
#
# Builder stages run on Debian (oven/bun:<v>-slim) and are the only stages
# with RUN steps; test/integration/container/dockerfile.test.ts replays them
# on a plain shell. Final images run on oven/bun:<v>-distroless: the same
# glibc Bun build as the builders, no shell, no package manager, non-root.
# Every RUN uses paths relative to its WORKDIR so the replay stays faithful.

# The Bun the test suite runs on; bump it together with the lockfile.
ARG BUN_VERSION=1.4.5

# ---------------------------------------------------------------------------
# deps: production dependencies only, from the lockfile, nothing resolved anew.
FROM oven/bun:${BUN_VERSION}-slim AS deps
WORKDIR /app
COPY package.json bun.lock bunfig.toml ./
# @elysiajs/openapi declares typescript as a peer, and Bun installs peers even
# with --production: ~45 MB of compiler and type packages. Nothing at runtime
# loads them (openapi only requires typescript inside its unused fromTypes()),
# so they are removed; the replay test starts every component without them.
RUN --mount=type=cache,target=/root/.bun/install/cache \
    bun install --frozen-lockfile --production \
    && rm -rf node_modules/typescript node_modules/@typescript \
      node_modules/@types node_modules/bun-types node_modules/undici-types

# ---------------------------------------------------------------------------
# hub-build: the Lit app, built once here so the hub image needs no bundler
# run at startup. tsconfig.json is needed: it sets the decorator semantics.
# NODE_ENV=production makes Bun.build pick Lit's production build (without
# it the bundle carries Lit's dev mode: ~15 KB more and a console warning).
FROM oven/bun:${BUN_VERSION}-slim AS hub-build
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bunfig.toml tsconfig.json ./
COPY src ./src
COPY hub ./hub
# No VITE_* values are compiled in: the container reads SVC_APP_API_BASE_URL
# and SVC_APP_API_KEY at runtime and serves them as /config.js.
RUN bun -e "import { buildHub, DEFAULT_DIST_DIR } from './src/hub-server/build-hub.ts'; await buildHub({ outDir: DEFAULT_DIST_DIR })" \
    && test -f hub/dist/index.html

# ---------------------------------------------------------------------------
# runtime: what the four images share. No RUN from here on (no shell).
FROM oven/bun:${BUN_VERSION}-distroless AS runtime
WORKDIR /app
# BUN_JSC_*: the JIT keeps the request path's optimised code through quiet
# spells (src/workers/server-runtime.ts). Bun stops at startup on an option
# it does not know: check it when BUN_VERSION changes (a unit test does).
ENV SVC_APP_APP_ENV=production \
    NODE_ENV=production \
    BUN_JSC_optimizedCodeAgingQuietAllocationMB=0
COPY --from=deps /app/node_modules ./node_modules
COPY package.json bunfig.toml tsconfig.json ./
COPY src ./src
# The application files stay owned by root: the process can read, not modify them.
# 65532 is distroless's "nonroot"; numeric so runAsNonRoot can verify it.
USER 65532:65532
# The components drain on SIGTERM and exit 0 (docs/proxy.md "Shutdown").
STOPSIGNAL SIGTERM

# ---------------------------------------------------------------------------
# migrator: applies sql/*.sql in order under an advisory lock, then exits.
# A one-shot job: no port, no HEALTHCHECK. Run it before every API upgrade.
FROM runtime AS migrator
LABEL org.opencontainers.image.title="svc-shadow migrator"
COPY sql ./sql
ENTRYPOINT ["/usr/local/bin/bun", "run", "src/main.ts", "migrate"]

# ---------------------------------------------------------------------------
# proxy: traffic on 8080, health and metrics on the admin port 8081.
FROM runtime AS proxy
LABEL org.opencontainers.image.title="svc-shadow proxy"
EXPOSE 8080 8081
# No curl or wget in distroless: Bun itself asks the admin port.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["/usr/local/bin/bun", "-e", "fetch('http://127.0.0.1:'+(process.env.SVC_APP_ADMIN_PORT||'8081')+'/health/ready',{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/local/bin/bun", "run", "src/main.ts", "proxy"]

# ---------------------------------------------------------------------------
# hub: the built SPA plus the static server, which writes /config.js from
# SVC_APP_API_BASE_URL and SVC_APP_API_KEY at startup, the page's runtime
# configuration (docs/hub.md "Configuration: which key to use when").
FROM runtime AS hub
LABEL org.opencontainers.image.title="svc-shadow hub"
COPY --from=hub-build /app/hub/dist ./hub/dist
EXPOSE 8070
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["/usr/local/bin/bun", "-e", "fetch('http://127.0.0.1:'+(process.env.SVC_APP_PORT||'8070')+'/health',{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/local/bin/bun", "run", "src/main.ts", "hub"]

# ---------------------------------------------------------------------------
# api: last, so a plain `docker build .` gives the API.
FROM runtime AS api
LABEL org.opencontainers.image.title="svc-shadow api"
EXPOSE 8090
# Ready, not just live: healthy means the database answers too.
HEALTHCHECK --interval=10s --timeout=3s --start-period=15s --retries=3 \
  CMD ["/usr/local/bin/bun", "-e", "fetch('http://127.0.0.1:'+(process.env.SVC_APP_PORT||'8090')+'/health/ready',{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/local/bin/bun", "run", "src/main.ts", "api"]
