// /v1/certificates (spec §2 #34–#36): show a cluster's CA, sign a CSR, rotate the CAs.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { errorResponses, Ident, UuidBody } from '../../../schemas/common.js';
import { hostUrl, selfLinks } from '../../../views.js';
import { CaQuery, Certificate, CertificateCreate, SignedCertificate, SignQuery } from './schema.js';
import { planRotateCa, startRotateCa } from '../../../../clusters/rotate-ca.js';
import { showCa, signCertificate, type CertificateDeps } from '../../../../clusters/sign-certificate.js';
import { caller } from '../../../request-caller.js';

const Params = Type.Object({ ident: Ident });
const TAGS = ['certificates'];

export const certificatesRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const s = app.services;
  const deps: CertificateDeps = { db: s.db, clusters: s.clusters, secretBox: s.secretBox, termDays: s.config.clientCertTtlDays };
  const links = (host: string, uuid: string) => selfLinks(host, `certificates/${uuid}`);

  app.get(
    '/certificates/:ident',
    {
      schema: {
        tags: TAGS,
        summary: "Show a cluster's CA certificate",
        params: Params,
        querystring: CaQuery,
        response: { 200: Type.Ref(Certificate), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request) => {
      const { cluster, pem } = await showCa(deps, request.auth, request.params.ident, request.query.ca_cert_type);
      return { cluster_uuid: cluster.uuid, bay_uuid: cluster.uuid, pem, links: links(hostUrl(request), cluster.uuid) };
    },
  );

  app.post(
    '/certificates',
    {
      config: { bodyName: 'certificate' },
      schema: {
        tags: TAGS,
        summary: "Sign a certificate signing request with the cluster's CA",
        description:
          'The certificate lives CLIENT_CERT_TTL_DAYS (30 days by default), or `ttl_hours` when shorter (an extension), and never past its CA. ' +
          'When it expires is answered in the header `X-Certificate-Expires` (RFC 3339), so that the body stays Magnum\'s. ' +
          'Refused (409) while the cluster rotates its CAs.',
        querystring: SignQuery,
        body: Type.Ref(CertificateCreate),
        response: { 201: Type.Ref(SignedCertificate), ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const { ttl_hours } = request.query;
      const { cluster, pem, notAfter } = await signCertificate(deps, request.auth, { ...body, ...(ttl_hours !== undefined ? { ttl_hours } : {}) });
      reply.code(201).header('x-certificate-expires', notAfter.toISOString());
      return {
        cluster_uuid: cluster.uuid,
        bay_uuid: cluster.uuid,
        csr: body.csr,
        pem,
        links: links(hostUrl(request), cluster.uuid),
        ...(body.ca_cert_type !== undefined ? { ca_cert_type: body.ca_cert_type } : {}),
      };
    },
  );

  // The client sends no body (Content-Type application/octet-stream, Content-Length 0).
  app.patch(
    '/certificates/:ident',
    {
      schema: {
        tags: TAGS,
        summary: "Rotate the cluster's CAs",
        params: Params,
        response: { 202: UuidBody, ...errorResponses(400, 401, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const uuid = await startRotateCa(s, await planRotateCa(s, caller(request), request.params.ident));
      return reply.code(202).send({ uuid });
    },
  );
};
