// Keystone v3 for the clusters (spec openstack-apis §1.5): the current user's application
// credentials (one per cluster, named by the cluster's uuid, restricted) and a project's record.
// Create with a token of the user (not one from a restricted application credential: 403).
import type { components } from '../../openapi/openstack/keystone.js';
import { deleted, versionPrefix } from './collection.js';
import { requestJson, type Session, type TokenSource } from './http.js';
import type { RetryPolicy } from './retry.js';

type S = components['schemas'];

export type ApplicationCredential = S['ApplicationCredential'];
export type ApplicationCredentialWithSecret = S['ApplicationCredentialWithSecret'];
export type Project = S['Project'];

export interface AppCredentialRequest {
  /** Unique per user (409 when taken): the cluster's uuid. */
  name: string;
  /** Role names or ids; all the roles of the creating token when absent. */
  roles?: S['RoleRef'][];
  description?: string;
  /** ISO time; never when absent. */
  expiresAt?: string;
}

export class KeystoneClient {
  private readonly v3: string;

  /** `userId`: the user the token belongs to (only they may manage their credentials). */
  constructor(
    private readonly session: Session,
    private readonly userId: string,
  ) {
    // The identity endpoint is usually …/v3; tolerate a bare one.
    this.v3 = versionPrefix(session.baseUrl, 'v3');
  }

  /**
   * POST: the secret is in this answer only. Always restricted (unrestricted false): its tokens
   * cannot create or delete credentials or trusts. Not repeated after an ambiguous failure: look
   * it up by name, and when found delete and create again, since the secret is lost (§1.5).
   */
  async createApplicationCredential(req: AppCredentialRequest): Promise<ApplicationCredentialWithSecret> {
    const body: S['ApplicationCredentialCreate'] = {
      name: req.name,
      unrestricted: false,
      ...(req.roles ? { roles: req.roles } : {}),
      ...(req.description !== undefined ? { description: req.description } : {}),
      ...(req.expiresAt !== undefined ? { expires_at: req.expiresAt } : {}),
    };
    const res = await requestJson<{ application_credential: ApplicationCredentialWithSecret }>(this.session, {
      method: 'POST',
      path: this.credsPath(),
      body: { application_credential: body },
      operation: 'application_credentials.create',
    });
    return res.body.application_credential;
  }

  /** The user's application credentials, all of them or the one named `name` (never a secret). */
  async listApplicationCredentials(name?: string): Promise<ApplicationCredential[]> {
    const res = await requestJson<{ application_credentials: ApplicationCredential[] }>(this.session, {
      path: this.credsPath(),
      query: { name },
      operation: 'application_credentials.list',
    });
    return res.body.application_credentials;
  }

  async getApplicationCredential(id: string): Promise<ApplicationCredential> {
    const res = await requestJson<{ application_credential: ApplicationCredential }>(this.session, {
      path: `${this.credsPath()}/${encodeURIComponent(id)}`,
      operation: 'application_credentials.get',
    });
    return res.body.application_credential;
  }

  /** DELETE; false when already gone. Services may accept its tokens for ~5 min more (token cache). */
  deleteApplicationCredential(id: string): Promise<boolean> {
    return deleted(() =>
      requestJson(this.session, { method: 'DELETE', path: `${this.credsPath()}/${encodeURIComponent(id)}`, operation: 'application_credentials.delete' }),
    );
  }

  /** GET /v3/projects/{id}: the token's own project, or any for an admin. */
  async getProject(id: string): Promise<Project> {
    const res = await requestJson<{ project: Project }>(this.session, { path: `${this.v3}/projects/${encodeURIComponent(id)}`, operation: 'projects.get' });
    return res.body.project;
  }

  private credsPath(): string {
    return `${this.v3}/users/${encodeURIComponent(this.userId)}/application_credentials`;
  }
}

export interface ServiceKeystoneOptions {
  /** Keystone's URL as the service is configured to reach it (…/v3). */
  authUrl: string;
  timeoutMs: number;
  /** The service user's token (src/keystone/service-token.ts). */
  token: TokenSource;
  retry?: RetryPolicy;
}

/**
 * Keystone as the service user, not as a caller: a project looked up for an admin's quota, a cluster's
 * credential deleted for its owner (`userId`, whose credentials the calls name; '' when none is named).
 */
export function serviceKeystone(opts: ServiceKeystoneOptions, userId = ''): KeystoneClient {
  return new KeystoneClient(
    { service: 'identity', baseUrl: opts.authUrl, token: opts.token, timeoutMs: opts.timeoutMs, ...(opts.retry ? { retry: opts.retry } : {}) },
    userId,
  );
}
