# syntax=docker/dockerfile:1
# One base for every stage: node:20-slim (Debian bookworm), pinned to a release so that builds repeat.
ARG NODE_IMAGE=node:20.20.2-bookworm-slim

# Compile src/ to dist/ with every dependency, TypeScript included.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts off: prepare would compile before the sources are copied.
RUN npm ci --ignore-scripts --no-fund --no-audit
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs ./scripts/
COPY src ./src
RUN npm run build

# Production dependencies only; no compiler, test or lint tools reach the image.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-fund --no-audit

FROM ${NODE_IMAGE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
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
