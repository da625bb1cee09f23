// Neutron's unauthenticated version list (GET /) and its extension list (spec openstack-apis §7.6).
import type { FastifyInstance } from 'fastify';
import { hostUrl } from '../common/service-app.js';

/** Only what the simulator implements. */
const EXTENSIONS = [
  { alias: 'external-net', name: 'Neutron external network', description: 'Adds external network attribute to network resource.' },
  { alias: 'filter-validation', name: 'Filter parameters validation', description: 'Provides validation on filtering parameters.' },
  { alias: 'pagination', name: 'Pagination support', description: 'Extension that indicates that pagination is enabled.' },
  { alias: 'sorting', name: 'Sorting support', description: 'Extension that indicates that sorting is enabled.' },
  { alias: 'project-id', name: 'project_id field enabled', description: 'Extension that indicates that project_id field is enabled.' },
  { alias: 'router', name: 'Neutron L3 Router', description: 'Router abstraction for basic L3 forwarding between L2 Neutron networks and access to external networks via a NAT gateway.' },
  { alias: 'ext-gw-mode', name: 'Neutron L3 Configurable external gateway mode', description: 'Extension of the router abstraction for specifying whether SNAT should occur on the external gateway' },
  { alias: 'security-group', name: 'security-group', description: 'The security groups extension.' },
  { alias: 'port-security', name: 'Port Security', description: 'Provides port security' },
  { alias: 'allowed-address-pairs', name: 'Allowed Address Pairs', description: 'Provides allowed address pairs' },
  { alias: 'binding', name: 'Port Binding', description: 'Expose port bindings of a virtual port to external application' },
  { alias: 'provider', name: 'Provider Network', description: 'Expose mapping of virtual networks to physical networks' },
  { alias: 'quotas', name: 'Quota management support', description: 'Expose functions for quotas management per project' },
  { alias: 'quota_details', name: 'Quota details management support', description: 'Expose functions for quotas usage statistics per project' },
  { alias: 'standard-attr-revisions', name: 'Resource revision numbers', description: 'This extension will display the revision number of neutron resources.' },
  { alias: 'revision-if-match', name: 'If-Match constraints based on revision_number', description: "Extension indicating that If-Match based on revision_number is supported." },
  { alias: 'stateful-security-group', name: 'Stateful security group', description: 'Indicates if the security group is stateful or not' },
  { alias: 'tag-creation', name: 'Tag creation extension', description: 'Allow to create multiple tags with the POST request.' },
  { alias: 'availability_zone', name: 'Availability Zone', description: 'The availability zone extension.' },
  { alias: 'network_availability_zone', name: 'Network Availability Zone', description: 'Availability zone support for network.' },
  { alias: 'router_availability_zone', name: 'Router Availability Zone', description: 'Availability zone support for router.' },
  { alias: 'standard-attr-tag', name: 'Tag support for resources with standard attribute: subnet, trunk, network_segment_range, router, network, policy, subnetpool, port, security_group, floatingip', description: 'Enables to set tag on resources with standard attribute.' },
];

export function registerVersionRoutes(app: FastifyInstance): void {
  app.get('/', async (request) => ({
    versions: [{ id: 'v2.0', status: 'CURRENT', links: [{ rel: 'self', href: `${hostUrl(request)}/v2.0/` }] }],
  }));
}

export function registerExtensionRoutes(scope: FastifyInstance): void {
  scope.get('/v2.0/extensions', async () => ({
    extensions: EXTENSIONS.map((e) => ({ ...e, links: [], updated: '2013-01-20T00:00:00-00:00' })),
  }));
}
