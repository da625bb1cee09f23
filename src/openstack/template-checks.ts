// What the template API asks of Glance, Nova and Neutron (spec §3.1): the image's os_distro,
// that flavors exist, that the external network is one. Failures are the API's 400/403/409.
import type { AuthContext } from '../keystone/context.js';

export interface CloudCaller {
  ctx: AuthContext;
  /** The caller's token: checks run with the caller's rights, as Magnum's do. */
  token: string;
}

export interface TemplateCloud {
  /** The image's os_distro; 400 when missing or without os_distro, 403 when not visible. */
  imageDistro(who: CloudCaller, image: string): Promise<string>;
  /** 400 "Unable to find flavor X." when Nova knows no such flavor (by id or name). */
  checkFlavor(who: CloudCaller, flavor: string): Promise<void>;
  /** 400 when no external network matches (id or name), 409 when several do. */
  checkExternalNetwork(who: CloudCaller, network: string): Promise<void>;
}
