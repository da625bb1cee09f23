// Does a Keystone project exist? Asked with the service's own identity (a quota may be set for a
// project the admin caller is not a member of), as Magnum asks with its domain admin, through the
// typed Keystone client; a token Keystone stops accepting is renewed once by the client.
import type { Config } from '../../../../config.js';
import { errors } from '../../../../domain/errors.js';
import { ServiceToken, ServiceTokenError } from '../../../../keystone/service-token.js';
import { isNotFound, OpenStackError } from '../../../../openstack/http.js';
import { serviceKeystone, type KeystoneClient } from '../../../../openstack/keystone.js';

export class KeystoneProjects {
  private readonly keystone: KeystoneClient;

  constructor(cfg: Config['keystone']) {
    const token = new ServiceToken(cfg.authUrl, cfg.service, cfg.timeoutMs);
    this.keystone = serviceKeystone({ authUrl: cfg.authUrl, timeoutMs: cfg.timeoutMs, token: token.source() });
  }

  async exists(projectId: string): Promise<boolean> {
    try {
      await this.keystone.getProject(projectId);
      return true;
    } catch (e) {
      if (isNotFound(e)) return false;
      // Down, slow, or refusing the service's own login or token: the API cannot tell.
      if (e instanceof OpenStackError || e instanceof ServiceTokenError) throw errors.keystoneUnavailable();
      throw e;
    }
  }
}
