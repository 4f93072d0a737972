# syntax=docker/dockerfile:1
# One image for the five services. APP picks the service: a build argument (docker compose builds one image
# per service with it) and an environment variable that can be overridden at run time (Kubernetes does).
#   docker build --build-arg APP=sessions -t payments-sessions .
# The chain watcher is the sessions app's second entry: the same image with the command
#   node dist/apps/sessions/src/chain-watcher/main.js
# (docker-compose.yml and k8s/base/chain-watcher.yaml set it; the health check below follows its PORT).
ARG NODE_IMAGE=node:20-slim

# Only the package manifests (and patches/, which the install's postinstall applies to dependencies), so the
# install layers below are reused until a package.json, the lock or a patch changes.
# `npm install` from the lock rather than `npm ci`: see scripts/install-packages.sh (lock files of this npm
# leave out optional platform builds, which `npm ci` reports as missing).
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN find . -type f ! -name package.json ! -name package-lock.json ! -path './patches/*' -delete \
 && find . -mindepth 1 -type d -empty -delete

# All dependencies, for the build.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /src ./
RUN --mount=type=cache,target=/root/.npm npm install --no-audit --no-fund

# swc compile of every app and lib into dist/ (type checking and tests run in CI, not here).
FROM deps AS build
COPY . .
RUN npm run build

# Production dependencies only.
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY --from=manifests /src ./
RUN --mount=type=cache,target=/root/.npm npm install --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ARG APP=gateway
ENV NODE_ENV=production \
    APP=${APP} \
    PORT=3000
WORKDIR /app
# Owned by root and read-only for the service's user; the root filesystem can be mounted read-only.
COPY --from=manifests /src ./
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The image's `node` user, by number so Kubernetes can verify runAsNonRoot.
USER 1000:1000
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# exec: node becomes PID 1 and receives SIGTERM itself, so shutdown is graceful.
CMD ["/bin/sh", "-c", "exec node dist/apps/$APP/src/main.js"]
