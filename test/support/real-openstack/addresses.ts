// The test cloud's address plan. Network safety: everything the tests (or the product under test) may dial is
// loopback. The external network's floating IPs and router gateways come from a loopback range; tenant subnets
// stay private (Neutron refuses a loopback subnet with DHCP) and nothing ever dials them: no packet flows in
// this cloud, Nova's fake driver boots nothing.

/** The external network `public`: floating IPs and router gateways (127.24.4.0/24, after devstack's 172.24.4.0/24). */
export const PUBLIC_CIDR = '127.24.4.0/24';
export const PUBLIC_GATEWAY = '127.24.4.1';
export const PUBLIC_POOL = { start: '127.24.4.2', end: '127.24.4.254' };

/** The tenant subnet the tests use (any private range; never dialed). */
export const TENANT_CIDR = '10.0.0.0/24';

/** Whether `ip` is a floating IP of the public range (the only addresses anybody may dial). */
export function inPublicRange(ip: string): boolean {
  const parts = ip.split('.').map(Number);
  return parts.length === 4 && parts[0] === 127 && parts[1] === 24 && parts[2] === 4 && parts.every((n) => Number.isInteger(n) && n >= 0 && n <= 255);
}
