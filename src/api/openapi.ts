// The OpenAPI document's frame; paths and schemas come from the routes themselves.
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { ErrorEnvelope, Unauthorized } from './schemas/common.js';
import {
  BayModel,
  BayModelCreate,
  BayModelList,
  ClusterTemplate,
  ClusterTemplateList,
  TemplateCreate,
} from './routes/v1/clustertemplates/schema.js';

/** Schemas with an $id, registered once and referenced from routes. */
export const sharedSchemas = [ErrorEnvelope, Unauthorized, ClusterTemplate, ClusterTemplateList, TemplateCreate, BayModel, BayModelList, BayModelCreate];

export const openapiInfo: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Container Infrastructure Management API (Magnum v1)',
      description:
        "OpenStack Magnum's container-infra v1 API. Every operation but the version documents needs a Keystone token in X-Auth-Token; microversions are negotiated with the OpenStack-API-Version header (container-infra 1.1 to 1.14, or latest; 1.10 is Zed's maximum).",
      version: '1.14',
    },
    components: { securitySchemes: { keystone: { type: 'apiKey', in: 'header', name: 'X-Auth-Token' } } },
    security: [{ keystone: [] }],
  },
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
  },
};
