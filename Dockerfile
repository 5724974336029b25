# syntax=docker/dockerfile:1
# Build stage: production dependencies only (the sources run through tsx, so there is no compile step).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-fund --no-audit

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY src ./src
COPY config.example.yaml /etc/station-exporter/config.example.yaml
USER node
EXPOSE 9732
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9732/-/healthy').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/station-exporter.js"]
CMD ["--config", "/etc/station-exporter/config.yaml"]
