// Neutron's unauthenticated version list (GET /) and its extensions (GET /v2.0/extensions and
// /v2.0/extensions/{alias}; spec openstack-apis §7.6), which clients read to decide what to offer
// (Horizon, openstacksdk's find_extension, the CLI's `extension list`).
import type { FastifyInstance } from 'fastify';
import { SimError } from '../common/errors.js';
import { hostUrl } from '../common/service-app.js';
import { WEBOB } from './errors.js';

interface Extension {
  name: string;
  alias: string;
  description: string;
  updated: string;
  links: [];
}

const ext = (alias: string, name: string, description: string, updated: string): Extension => ({ name, alias, description, updated, links: [] });

/**
 * Only what the simulator implements, each as Zed's neutron-server describes it (neutron-lib 3.1's API
 * definitions, neutron's own extensions for the rest).
 */
export const EXTENSIONS: readonly Extension[] = [
  ext('external-net', 'Neutron external network', 'Adds external network attribute to network resource.', '2013-01-14T10:00:00-00:00'),
  ext('router', 'Neutron L3 Router', 'Router abstraction for basic L3 forwarding between L2 Neutron networks and access to external networks via a NAT gateway.', '2012-07-20T10:00:00-00:00'),
  ext('ext-gw-mode', 'Neutron L3 Configurable external gateway mode', 'Extension of the router abstraction for specifying whether SNAT should occur on the external gateway', '2013-03-28T10:00:00-00:00'),
  ext('security-group', 'security-group', 'The security groups extension.', '2012-10-05T10:00:00-00:00'),
  ext('stateful-security-group', 'Stateful security group', 'Indicates if the security group is stateful or not', '2019-11-26T09:00:00-00:00'),
  ext('port-security', 'Port Security', 'Provides port security', '2012-07-23T10:00:00-00:00'),
  ext('allowed-address-pairs', 'Allowed Address Pairs', 'Provides allowed address pairs', '2013-07-23T10:00:00-00:00'),
  ext('extra_dhcp_opt', 'Neutron Extra DHCP options', 'Extra options configuration for DHCP. For example PXE boot options to DHCP clients can be specified (e.g. tftp-server, server-ip-address, bootfile-name)', '2013-03-17T12:00:00-00:00'),
  ext('binding', 'Port Binding', 'Expose port bindings of a virtual port to external application', '2014-02-03T10:00:00-00:00'),
  ext('provider', 'Provider Network', 'Expose mapping of virtual networks to physical networks', '2012-09-07T10:00:00-00:00'),
  ext('net-mtu', 'Network MTU', 'Provides MTU attribute for a network resource.', '2015-03-25T10:00:00-00:00'),
  ext('fip-port-details', 'Floating IP Port Details Extension', 'Add port_details attribute to Floating IP resource', '2018-04-09T10:00:00-00:00'),
  ext('quotas', 'Quota management support', 'Expose functions for quotas management per project', '2012-07-29T10:00:00-00:00'),
  ext('quota_details', 'Quota details management support', 'Expose functions for quotas usage statistics per project', '2017-02-10T10:00:00-00:00'),
  ext('standard-attr-description', 'standard-attr-description', 'Extension to add descriptions to standard attributes', '2016-02-10T10:00:00-00:00'),
  ext('standard-attr-timestamp', 'Resource timestamps', 'Adds created_at and updated_at fields to all Neutron resources that have Neutron standard attributes.', '2016-09-12T10:00:00-00:00'),
  ext('standard-attr-revisions', 'Resource revision numbers', 'This extension will display the revision number of neutron resources.', '2016-04-11T10:00:00-00:00'),
  ext('revision-if-match', 'If-Match constraints based on revision_number', 'Extension indicating that If-Match based on revision_number is supported.', '2016-12-11T00:00:00-00:00'),
  ext('standard-attr-tag', 'Tag support for resources with standard attribute: subnet, trunk, network_segment_range, router, network, policy, subnetpool, port, security_group, floatingip', 'Enables to set tag on resources with standard attribute.', '2017-01-01T00:00:00-00:00'),
  // Not Zed's (it answers POST …/tags with 404): a later Neutron's, which the simulator's tag routes implement
  // (its date approximate).
  ext('tag-creation', 'Tag creation extension', 'Allow to create multiple tags with the POST request.', '2023-01-01T00:00:00-00:00'),
  ext('availability_zone', 'Availability Zone', 'The availability zone extension.', '2015-01-01T10:00:00-00:00'),
  ext('network_availability_zone', 'Network Availability Zone', 'Availability zone support for network.', '2015-01-01T10:00:00-00:00'),
  ext('router_availability_zone', 'Router Availability Zone', 'Availability zone support for router.', '2015-01-01T10:00:00-00:00'),
  ext('filter-validation', 'Filter parameters validation', 'Provides validation on filter parameters.', '2018-07-04T10:00:00-00:00'),
  ext('pagination', 'Pagination support', 'Extension that indicates that pagination is enabled.', '2016-06-12T00:00:00-00:00'),
  ext('sorting', 'Sorting support', 'Extension that indicates that sorting is enabled.', '2016-06-12T00:00:00-00:00'),
  ext('project-id', 'project_id field enabled', 'Extension that indicates that project_id field is enabled.', '2016-09-09T09:09:09-09:09'),
];

export function registerVersionRoutes(app: FastifyInstance): void {
  app.get('/', async (request) => ({
    versions: [{ id: 'v2.0', status: 'CURRENT', links: [{ rel: 'self', href: `${hostUrl(request)}/v2.0/` }] }],
  }));
}

/** Behind the token, as in Neutron. An unknown alias is pecan's 404, which reaches the client as webob's page. */
export function registerExtensionRoutes(scope: FastifyInstance): void {
  scope.get('/v2.0/extensions', async () => ({ extensions: EXTENSIONS }));
  scope.get<{ Params: { alias: string } }>('/v2.0/extensions/:alias', async (request) => {
    const found = EXTENSIONS.find((e) => e.alias === request.params.alias);
    if (!found) throw new SimError(404, `Extension with alias ${request.params.alias} does not exist`, WEBOB);
    return { extension: found };
  });
}
