# The exchange backend: one image for every role (ROLES picks api, ws, worker or a mix).
# Debian, not Alpine: the uWebSockets.js binary is built against glibc.
# It runs the TypeScript through tsx, as `npm start` does (docs/operations.md says why).

# Build: every dependency, a type-check (tsx transpiles without one), then the dev dependencies go.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx tsc --noEmit -p . \
  && npm prune --omit=dev --no-audit --no-fund \
  && npm cache clean --force

# Run: sources, Lua, config and production dependencies, owned by root, run by the "node" user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    PORT=8080 \
    WS_PORT=8081
WORKDIR /app
COPY --from=build /app /app
USER node
EXPOSE 8080 8081
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "--import", "tsx", "scripts/containers/health.ts"]
# node directly, not under npm, so SIGTERM reaches the app's graceful shutdown.
CMD ["node", "--import", "tsx", "src/bin/start.ts"]
