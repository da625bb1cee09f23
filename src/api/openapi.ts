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
import { Certificate, CertificateCreate, SignedCertificate } from './routes/v1/certificates/schema.js';
import { MService, MServiceList } from './routes/v1/mservices.js';
import { Quota, QuotaCreate, QuotaList, QuotaUpdate } from './routes/v1/quotas/schema.js';
import { Stats } from './routes/v1/stats.js';
import {
  Bay,
  BayCreate,
  BayDetailList,
  BayList,
  BayListItem,
  Cluster,
  ClusterCreate,
  ClusterDetailList,
  ClusterEvents,
  ClusterList,
  ClusterListItem,
  ResizeBody,
  UpgradeBody,
} from './routes/v1/clusters/schema.js';
import { CloudChoices } from './routes/v1/cloud-choices.js';
import { DryRun } from './dry-run.js';
import { ClusterResources } from './routes/v1/clusters/resources.js';
import { ClusterUpgrades } from './routes/v1/clusters/upgrades.js';
import { IdentityKubeconfig } from './routes/v1/clusters/kubeconfig.js';
import { ClusterLive, ClusterSummary } from './routes/v1/streams/summary.js';
import { LoginBody, PortalSession } from './portal/routes.js';
import { NodeGroupNodes } from './routes/v1/nodegroups/nodes.js';
import { NodeGroup, NodeGroupCreate, NodeGroupCreated, NodeGroupList, NodeGroupListItem } from './routes/v1/nodegroups/schema.js';

/** Schemas with an $id, registered once and referenced from routes. */
export const sharedSchemas = [ErrorEnvelope, Unauthorized, ClusterTemplate, ClusterTemplateList, TemplateCreate, BayModel, BayModelList, BayModelCreate, Quota, QuotaList, QuotaCreate, QuotaUpdate, Stats, MService, MServiceList,
  Cluster, ClusterListItem, ClusterList, ClusterDetailList, ClusterCreate, ClusterEvents, ResizeBody, UpgradeBody,
  Bay, BayListItem, BayList, BayDetailList, BayCreate,
  NodeGroup, NodeGroupCreated, NodeGroupListItem, NodeGroupList, NodeGroupCreate,
  Certificate, CertificateCreate, SignedCertificate,
  ClusterResources, NodeGroupNodes, ClusterUpgrades, IdentityKubeconfig, CloudChoices, DryRun, ClusterSummary, ClusterLive, LoginBody, PortalSession];

export const openapiInfo: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'Container Infrastructure Management API (Magnum v1)',
      description:
        "OpenStack Magnum's container-infra v1 API. Every operation but the version documents needs a Keystone token in X-Auth-Token; microversions are negotiated with the OpenStack-API-Version header (container-infra 1.1 to 1.14, or latest; 1.10 is Zed's maximum).",
      version: '1.14',
    },
    components: {
      securitySchemes: {
        keystone: { type: 'apiKey', in: 'header', name: 'X-Auth-Token' },
        portalSession: {
          type: 'apiKey',
          in: 'cookie',
          name: 'magnum_session',
          description:
            'The portal’s session (an extension): the HttpOnly cookie set by POST /portal/login stands for X-Auth-Token only with the session’s CSRF token in X-CSRF-Token (query `csrf` for GET /v1/streams/*), from the same origin (Origin / Sec-Fetch-Site), and never together with X-Auth-Token. X-Portal-Project (query `project` for streams) names the project to act in.',
        },
      },
    },
    security: [{ keystone: [] }],
  },
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`),
  },
};
