# Convene: one container, embedded SQLite.
#   docker build -t convene .
#   docker run -p 3000:3000 -v convene-data:/data convene
ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: bundle the TypeScript (scripts/build.mjs) and compile the better-sqlite3 native module -
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# node-gyp needs a compiler and Python; the official image has neither, a prepared base may.
RUN command -v g++ >/dev/null && command -v make >/dev/null && command -v python3 >/dev/null \
    || (apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
        && rm -rf /var/lib/apt/lists/*)
# Build native modules against the headers that ship with this Node (no download).
ENV npm_config_nodedir=/usr/local \
    npm_config_audit=false \
    npm_config_fund=false \
    npm_config_update_notifier=false
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
# the compiler settings the bundler follows (JSX for preact, class fields)
COPY tsconfig.base.json ./
COPY src ./src
COPY migrations ./migrations
COPY bin ./bin
COPY scripts ./scripts
# the integrator's guide, served at /docs/guide (copied beside the bundles by the build)
COPY docs ./docs
RUN npm run build && npm prune --omit=dev

# --- runtime: production dependencies and the compiled service, as a non-root user ---------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATABASE_PATH=/data/convene.db
WORKDIR /app
RUN groupadd --system --gid 10001 convene \
    && useradd --system --uid 10001 --gid convene --home-dir /app --shell /usr/sbin/nologin convene \
    && mkdir -p /data && chown convene:convene /data
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --from=build --chown=root:root /app/bin ./bin
RUN ln -s /app/bin/convene.mjs /usr/local/bin/convene
USER convene
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: Node is PID 1 and receives SIGTERM itself, and shuts down gracefully. The heap flags
# are those of `npm start`: they keep memory under 200 MB under load (see bench/RESULTS.md).
STOPSIGNAL SIGTERM
CMD ["node", "--max-old-space-size=256", "--max-semi-space-size=8", "dist/src/main.js"]
