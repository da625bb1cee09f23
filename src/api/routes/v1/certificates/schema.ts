// The certificate wire shapes (spec §3.5): one source for validation, serialization, the OpenAPI
// document and the TypeScript types.
import { Type, type Static } from '@sinclair/typebox';
import { CSR_MAX, STRING_MAX } from '../../../../domain/limits.js';
import { CA_CERT_TYPES, type CaCertType } from '../../../../clusters/sign-certificate.js';
import { Links } from '../../../schemas/common.js';

// A plain enum (not a union of literals): ajv then reports wsme's "Value should be one of: ...".
const CaCertTypeSchema = Type.Unsafe<CaCertType>({ type: 'string', enum: [...CA_CERT_TYPES] });

export const CaQuery = Type.Object({ ca_cert_type: Type.Optional(CaCertTypeSchema) }, { additionalProperties: false });
export type CaQueryT = Static<typeof CaQuery>;

export const Certificate = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    bay_uuid: Type.String({ format: 'uuid', description: 'The same value as cluster_uuid' }),
    pem: Type.String({ description: 'The CA certificate, PEM, no trailing newline' }),
    links: Links,
  },
  { $id: 'Certificate' },
);

export const CertificateCreate = Type.Object(
  {
    cluster_uuid: Type.Optional(Type.String({ minLength: 1, maxLength: STRING_MAX, description: 'UUID or name of the cluster' })),
    bay_uuid: Type.Optional(Type.String({ minLength: 1, maxLength: STRING_MAX, description: 'Accepted instead of cluster_uuid' })),
    csr: Type.String({ minLength: 1, maxLength: CSR_MAX, description: 'PEM certificate signing request' }),
    ca_cert_type: Type.Optional(CaCertTypeSchema),
  },
  { additionalProperties: false, $id: 'CertificateCreate' },
);
export type CertificateCreateT = Static<typeof CertificateCreate>;

export const SignedCertificate = Type.Object(
  {
    cluster_uuid: Type.String({ format: 'uuid' }),
    bay_uuid: Type.String({ format: 'uuid' }),
    csr: Type.String(),
    pem: Type.String({ description: 'The signed certificate, PEM, no trailing newline' }),
    links: Links,
    ca_cert_type: Type.Optional(Type.String({ description: 'Echoed when the request named one' })),
  },
  { $id: 'SignedCertificate' },
);
