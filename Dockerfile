# syntax=docker/dockerfile:1
# One base for every stage: node:24-slim (Node 24 LTS on Debian bookworm), pinned to a release so
# that builds repeat. scripts/image/build.sh builds on an equivalent local base where no registry is.
ARG NODE_IMAGE=node:24.21.0-bookworm-slim
# A CA bundle for npm, for a registry behind a TLS-inspecting proxy: a path inside the build,
# mounted there read-only by the builder (scripts/image/build.sh); empty: npm's own trust.
# Only the path is an argument; the bundle is never part of a layer.
ARG NPM_CAFILE=

# Build dist/ from src/ with every dependency (esbuild among them): the exporter and its runtime
# dependencies bundled (scripts/bundle.mjs), so the image needs no node_modules.
FROM ${NODE_IMAGE} AS build
ARG NPM_CAFILE
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: prepare would compile before the sources are copied (and the `node` devDependency
# would fetch a second Node the image does not need).
RUN if [ -n "$NPM_CAFILE" ]; then export npm_config_cafile="$NPM_CAFILE"; fi; \
    npm ci --ignore-scripts --no-fund --no-audit
COPY tsconfig.json ./
COPY scripts/build.mjs scripts/bundle.mjs ./scripts/
COPY src ./src
RUN npm run build

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
# The bundle alone: no node_modules, so no compiler, test or lint tool can reach the image.
COPY package.json ./
COPY bin ./bin
COPY --from=build /app/dist ./dist
COPY config.example.yaml /etc/station-exporter/config.example.yaml
# The unprivileged user of the node images (uid 1000); the files above stay root-owned, read-only to it.
USER node
EXPOSE 9732
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9732/-/healthy').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/station-exporter.js"]
CMD ["--config", "/etc/station-exporter/config.yaml"]
