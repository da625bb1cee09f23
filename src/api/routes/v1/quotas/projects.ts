// Does a Keystone project exist? Asked with the service's own token (a quota may be set for a
// project the admin caller is not a member of), as Magnum asks with its domain admin.
import type { Config } from '../../../../config.js';
import { errors } from '../../../../domain/errors.js';
import { callJson, UnreachableError } from '../../../../keystone/http.js';
import { ServiceToken, ServiceTokenError } from '../../../../keystone/service-token.js';

export class KeystoneProjects {
  private readonly token: ServiceToken;

  constructor(private readonly cfg: Config['keystone']) {
    this.token = new ServiceToken(cfg.authUrl, cfg.service, cfg.timeoutMs);
  }

  async exists(projectId: string): Promise<boolean> {
    for (let attempt = 0; attempt < 2; attempt++) {
      let token: string;
      let status: number;
      try {
        token = await this.token.get();
        status = (
          await callJson(`${this.cfg.authUrl}/projects/${encodeURIComponent(projectId)}`, {
            method: 'GET',
            timeoutMs: this.cfg.timeoutMs,
            headers: { 'x-auth-token': token },
          })
        ).status;
      } catch (e) {
        if (e instanceof UnreachableError || e instanceof ServiceTokenError) throw errors.keystoneUnavailable();
        throw e;
      }
      if (status === 200) return true;
      if (status === 404) return false;
      // The service token expired or was revoked: log in again, once.
      if (status === 401 && attempt === 0) {
        this.token.invalidate(token);
        continue;
      }
      break;
    }
    throw errors.keystoneUnavailable();
  }
}
