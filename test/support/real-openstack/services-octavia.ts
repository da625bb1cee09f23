// Octavia: the amphora provider with every amphora-side driver a no-op (no amphora ever boots), its API with
// the allowed-address-pairs network driver (a load balancer's VIP is a real Neutron port, a floating IP can go
// on it), its worker with the no-op network driver that also deletes that port (python/realos_octavia_network.py),
// a CA of its own for the local certificate generator, and the jobboard off, as Zed ships it.
import { join } from 'node:path';
import { common, noNotifications, pythonDaemon, uwsgiDaemon } from './daemons.js';
import { authtoken, renderIni, serviceAuth, uwsgiIni } from './ini.js';
import { HOST, SECRETS, dbUrl, dirOf, type Layout } from './layout.js';
import type { ServiceFiles } from './services-infra.js';

export function octavia(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'octavia');
  const certs = join(dir, 'certs');
  const conf = (networkDriver: string) => renderIni({
    DEFAULT: common(l),
    api_settings: {
      bind_host: HOST,
      bind_port: l.ports.octavia,
      auth_strategy: 'keystone',
      default_provider_driver: 'amphora',
      enabled_provider_drivers: 'amphora:The Octavia Amphora driver.',
    },
    database: { connection: dbUrl(l.ports, 'octavia') },
    keystone_authtoken: authtoken(l.ports, 'octavia'),
    service_auth: serviceAuth(l.ports, 'octavia'),
    certificates: {
      cert_generator: 'local_cert_generator',
      ca_certificate: join(certs, 'ca.pem'),
      ca_private_key: join(certs, 'ca.key'),
      ca_private_key_passphrase: SECRETS.octaviaCa,
      server_certs_key_passphrase: SECRETS.octaviaServerCerts,
    },
    controller_worker: {
      workers: 1,
      client_ca: join(certs, 'ca.pem'),
      amphora_driver: 'amphora_noop_driver',
      compute_driver: 'compute_noop_driver',
      network_driver: networkDriver,
      image_driver: 'image_noop_driver',
      volume_driver: 'volume_noop_driver',
      loadbalancer_topology: 'SINGLE',
    },
    // Zed's default. A fully populated load balancer then leaves its children PENDING_CREATE (a Zed bug that
    // real Zed clouds show); kept on purpose.
    task_flow: { jobboard_enabled: false },
    neutron: { region_name: 'RegionOne', endpoint_type: 'public' },
    nova: { region_name: 'RegionOne' },
    glance: { region_name: 'RegionOne' },
    oslo_concurrency: { lock_path: join(dir, 'lock') },
    oslo_messaging: { topic: 'octavia_prov' },
    oslo_messaging_notifications: noNotifications,
    oslo_policy: { policy_file: join(dir, 'policy.yaml') },
  });
  const ini = uwsgiIni({
    port: l.ports.octavia, script: '/usr/bin/octavia-wsgi', dir, processes: 2,
    pyargv: `--config-file ${join(dir, 'octavia-api.conf')}`, env: { PYTHONPATH: l.python },
  });
  return {
    files: {
      octavia: {
        // The API makes the VIP port in Neutron (a floating IP can go on it)...
        'octavia-api.conf': conf('allowed_address_pairs_driver'),
        // ...the worker plugs nothing, and deletes that port with the load balancer (python/realos_octavia_network.py).
        'octavia-worker.conf': conf('realos_noop_deleting_vip'),
        'octavia-api-uwsgi.ini': ini,
      },
      'octavia/lock': {},
    },
    daemons: [
      uwsgiDaemon(l, 'octavia', 'octavia-api', 'octavia', l.ports.octavia),
      pythonDaemon(l, 'octavia', 'octavia-worker', 'octavia', ['/usr/bin/octavia-worker', '--config-file', join(dir, 'octavia-worker.conf')], { PYTHONPATH: l.python }),
    ],
  };
}
