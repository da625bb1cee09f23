// /v1 clusters routes (being written).
import type { FastifyInstance } from 'fastify';

export async function clustersRoutes(_app: FastifyInstance): Promise<void> {}
