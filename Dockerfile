# sluice in a container: docs/deployment.md. Build: docker build -t sluice .
# Run:  docker run -d --name sluice --env-file /etc/sluice/sluice.env -v sluice-state:/var/lib/sluice \
#         --stop-timeout 90 sluice

FROM node:20-slim AS deps
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary; when that fails it compiles, which needs these.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# esbuild is in "dependencies", not "devDependencies": it compiles the TypeScript sources (below)
# and strategy plugins (as they load), so --omit=dev keeps it.
RUN npm ci --omit=dev && npm cache clean --force

FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
# A fixed uid/gid, so files mounted from the host (a credentials file) can be chowned to it.
RUN groupadd --system --gid 10001 sluice \
 && useradd --system --uid 10001 --gid sluice --home-dir /var/lib/sluice --shell /usr/sbin/nologin sluice \
 && install -d -o sluice -g sluice -m 0750 /var/lib/sluice
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY strategies ./strategies
COPY config ./config
# The sources compiled to dist/ while still root: the sluice user cannot write to /app.
RUN node bin/build.js
COPY deploy/sluice.yaml /etc/sluice/sluice.yaml

# Never root: the daemon needs nothing but its state directory.
USER sluice
# The journal, the kill-switch file and tapes: keep them across container upgrades.
VOLUME /var/lib/sluice
# The ops endpoint listens on 127.0.0.1 unless SLUICE_HTTP_HOST=0.0.0.0 is set (deploy/sluice.yaml):
# loopback inside the container is enough for the health check below, and nothing is exposed
# by accident. Set 0.0.0.0 only to publish the port, e.g. -p 127.0.0.1:9464:9464, and then set
# SLUICE_HTTP_TOKEN too: sluice refuses to serve off loopback without a token (/healthz stays open).
ENV SLUICE_HTTP_PORT=9464
EXPOSE 9464
# SIGTERM runs the orderly shutdown; give it --stop-timeout 90 (docker's default is 10 s).
STOPSIGNAL SIGTERM
# 200 only when ready, not banned, not halted and the venue answers; start-up reconciles first.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SLUICE_HTTP_PORT || 9464) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/sluice.js"]
CMD ["run", "--config", "/etc/sluice/sluice.yaml"]
