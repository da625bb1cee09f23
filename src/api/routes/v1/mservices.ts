// GET /v1/mservices (being written).
import type { FastifyInstance } from 'fastify';

export async function mservicesRoutes(_app: FastifyInstance): Promise<void> {}
