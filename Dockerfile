# syntax=docker/dockerfile:1
# The gateway, the workers and the migration step share this image; what runs is chosen by
# the command (deploy/compose.yaml). test/app/deploy.test.ts runs the RUN lines below, in the
# same order and folders, on a clean copy of the repository: keep the two in step.
ARG NODE_IMAGE=node:24-bookworm-slim

# Build: every dependency (prisma, esbuild and vite are needed here only); npm ci's
# postinstall generates the Prisma client and builds dist/ (the server bundle and the page).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund

# Runtime dependencies only. No install scripts: they would build again, which needs the
# dev tools; dist/ comes from the build stage with the Prisma client bundled into it.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    PORT=4000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Migrations are read at run time (npm run db:migrate, and each process's start).
COPY package.json package-lock.json ./
COPY prisma ./prisma
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 4000
# node itself as PID 1's command, not npm: SIGTERM from the engine reaches the gateway.
# The worker: ["node", "--enable-source-maps", "dist/worker.js"]; migrations: dist/migrate.js.
CMD ["node", "--enable-source-maps", "dist/main.js"]
