# syntax=docker/dockerfile:1
# One image for every role of magnum-ts, chosen by the command (src/process/modes.ts):
#   docker run IMAGE api | worker | migrate | sim        (docker run IMAGE --help lists them)
# Stages: deps (every npm dependency) -> build (tsc into dist/, the portal into portal/dist/) ->
# prod-deps (production dependencies only) -> runtime (dist/, portal/dist/ and those, as a non-root user). No HEALTHCHECK here: the
# roles answer different probes; docker-compose.yml and deploy/kubernetes/ give each its own.
# test/deploy/image.test.ts checks what this file copies and runs its runtime stage as laid out here.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/
COPY src src
COPY workers workers
COPY cloudsim cloudsim
COPY migrations migrations
COPY openapi openapi
RUN npm run build
# The portal's front-end (esbuild through tsx, both dev dependencies): it bundles the generated API
# types (openapi/) and the label registry (src/kube), copied above. The API serves it under /ui/.
COPY portal portal
RUN node_modules/.bin/tsx portal/build.ts

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
WORKDIR /app
# package.json says the compiled files are ES modules.
COPY package.json ./
COPY --from=prod-deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/portal/dist portal/dist
# In a container the API and a worker's probes listen on every interface.
ENV API_HOST=0.0.0.0 \
    WORKER_HEALTH_HOST=0.0.0.0 \
    WORKER_HEALTH_PORT=9512
EXPOSE 9511 9512
# The base image's `node` user, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["api"]
