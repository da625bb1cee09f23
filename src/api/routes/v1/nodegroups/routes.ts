// /v1 nodegroups routes (being written).
import type { FastifyInstance } from 'fastify';

export async function nodegroupsRoutes(_app: FastifyInstance): Promise<void> {}
