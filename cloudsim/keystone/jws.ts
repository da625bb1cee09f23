// ES256 JWS tokens with exactly Keystone's claim set (header {alg:ES256,typ:JWT}, no kid).
import { compactVerify, decodeJwt, exportSPKI, generateKeyPair, SignJWT } from 'jose';
import type { CryptoKey, JWTPayload } from 'jose';
import type { TokenCodec, TokenPayload } from './tokens.js';

export interface KeystoneJwtClaims extends JWTPayload {
  sub: string;
  iat: number;
  exp: number;
  openstack_methods: string[];
  openstack_audit_ids: string[];
  openstack_project_id?: string;
  openstack_domain_id?: string;
  openstack_system?: string;
  openstack_app_cred_id?: string;
}

export function payloadToClaims(p: TokenPayload): KeystoneJwtClaims {
  const claims: KeystoneJwtClaims = {
    sub: p.userId,
    iat: Math.floor(p.issuedAt / 1000),
    exp: Math.floor(p.expiresAt / 1000),
    openstack_methods: p.methods,
    openstack_audit_ids: p.auditIds,
  };
  if (p.scope?.kind === 'project') claims.openstack_project_id = p.scope.id;
  if (p.scope?.kind === 'domain') claims.openstack_domain_id = p.scope.id;
  if (p.scope?.kind === 'system') claims.openstack_system = p.scope.id;
  if (p.appCredId !== undefined) claims.openstack_app_cred_id = p.appCredId;
  return claims;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');
const optString = (v: unknown): boolean => v === undefined || typeof v === 'string';

export function claimsToPayload(c: Record<string, unknown>): TokenPayload | undefined {
  const { sub, iat, exp, openstack_methods: methods, openstack_audit_ids: auditIds } = c;
  if (typeof sub !== 'string' || typeof iat !== 'number' || typeof exp !== 'number') return undefined;
  if (!isStringArray(methods) || !isStringArray(auditIds) || auditIds.length === 0) return undefined;
  const { openstack_project_id: pid, openstack_domain_id: did, openstack_system: sys, openstack_app_cred_id: acid } = c;
  if (!optString(pid) || !optString(did) || !optString(sys) || !optString(acid)) return undefined;
  const payload: TokenPayload = { userId: sub, methods, auditIds, issuedAt: iat * 1000, expiresAt: exp * 1000 };
  if (typeof pid === 'string') payload.scope = { kind: 'project', id: pid };
  else if (typeof did === 'string') payload.scope = { kind: 'domain', id: did };
  else if (typeof sys === 'string') payload.scope = { kind: 'system', id: sys };
  if (typeof acid === 'string') payload.appCredId = acid;
  return payload;
}

export class JwsCodec implements TokenCodec {
  readonly format = 'jws' as const;
  readonly precisionMs = 1000;

  private constructor(
    private readonly privateKey: CryptoKey,
    private readonly publicKey: CryptoKey,
    private readonly spkiPem: string,
  ) {}

  static async create(): Promise<JwsCodec> {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    return new JwsCodec(privateKey, publicKey, await exportSPKI(publicKey));
  }

  async encode(payload: TokenPayload): Promise<string> {
    return new SignJWT(payloadToClaims(payload)).setProtectedHeader({ alg: 'ES256', typ: 'JWT' }).sign(this.privateKey);
  }

  /** Signature only; expiry is Keystone's own check (needed for allow_expired). */
  async decode(token: string): Promise<TokenPayload | undefined> {
    try {
      const { payload } = await compactVerify(token, this.publicKey, { algorithms: ['ES256'] });
      const claims: unknown = JSON.parse(new TextDecoder().decode(payload));
      if (typeof claims !== 'object' || claims === null) return undefined;
      return claimsToPayload(claims as Record<string, unknown>);
    } catch {
      return undefined;
    }
  }

  peekAuditIds(token: string): string[] | undefined {
    try {
      const ids = decodeJwt(token).openstack_audit_ids;
      return isStringArray(ids) ? ids : undefined;
    } catch {
      return undefined;
    }
  }

  publicKeyPem(): string {
    return this.spkiPem;
  }
}
