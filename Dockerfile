# readybell's image: the release of scripts/release.sh on Node 24, nothing else. CI cannot build
# images (no container engine), so it replays this file's steps instead (scripts/release-smoke.ts,
# the "release: build and smoke" stage): it builds the release from the same context and runs the
# same CMD and HEALTHCHECK against it. Keep to what that replay understands: FROM, WORKDIR, COPY,
# RUN, ENV, USER, VOLUME, EXPOSE, HEALTHCHECK and CMD in exec form. See docs/deployment.md.

# The same Node as the `node` devDependency that the tests run on (a test checks the two agree).
FROM node:24.21.0-slim AS build
WORKDIR /build/src
COPY package.json package-lock.json ./
# --ignore-scripts: the dev tools the release script uses (vite and its esbuild) work without their
# install scripts, and the `node` devDependency's script would fetch a second Node this image has.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN scripts/release.sh ../release

FROM node:24.21.0-slim
ENV HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
WORKDIR /app
# Owned by root and read-only to the service: it writes only under DATA_DIR.
COPY --from=build /build/release ./
# The volume's mount point, writable by the unprivileged user the service runs as.
RUN install -d -o node -g node /data
USER node
VOLUME /data
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz', { signal: AbortSignal.timeout(2500) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself; readybell stops accepting, drains and
# closes its streams, and exits 0 within 15 s (compose gives it 20 s).
CMD ["node", "src/cli/main.ts", "serve"]
