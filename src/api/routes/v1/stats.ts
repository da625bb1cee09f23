// GET /v1/stats (being written).
import type { FastifyInstance } from 'fastify';

export async function statsRoutes(_app: FastifyInstance): Promise<void> {}
