// /v1 certificates routes (being written).
import type { FastifyInstance } from 'fastify';

export async function certificatesRoutes(_app: FastifyInstance): Promise<void> {}
