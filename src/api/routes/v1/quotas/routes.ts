// /v1 quotas routes (being written).
import type { FastifyInstance } from 'fastify';

export async function quotasRoutes(_app: FastifyInstance): Promise<void> {}
