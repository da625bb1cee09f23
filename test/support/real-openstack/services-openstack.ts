// The OpenStack services' configuration and processes: Keystone, Placement, Nova (API, conductor, scheduler
// and a compute service on Nova's fake driver), Neutron (ML2, no agents), Glance (file store) and Cinder (fake
// volume driver); Octavia in services-octavia.ts. Every API is on loopback.
import { join } from 'node:path';
import { answers, common, noNotifications, pythonDaemon, uwsgiDaemon } from './daemons.js';
import { LOGGING, authtoken, renderIni, serviceAuth, uwsgiIni, type Ini } from './ini.js';
import { HOST, dbUrl, dirOf, url, type Layout } from './layout.js';
import type { ServiceFiles } from './services-infra.js';
import { octavia } from './services-octavia.js';

/** The Nova compute host (and the conductor's and scheduler's host name). */
export const COMPUTE_HOST = 'realos-compute';
export const VOLUME_HOST = 'realos-volume';

export function keystone(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'keystone');
  const conf = renderIni({
    DEFAULT: LOGGING,
    database: { connection: dbUrl(l.ports, 'keystone') },
    identity: { password_hash_rounds: 4 },
    token: { provider: 'fernet', expiration: 14400 },
    fernet_tokens: { key_repository: join(dir, 'fernet-keys') },
    fernet_receipts: { key_repository: join(dir, 'fernet-keys') },
    credential: { key_repository: join(dir, 'credential-keys') },
  });
  const ini = uwsgiIni({ port: l.ports.keystone, script: '/usr/bin/keystone-wsgi-public', dir, processes: 2, preload: true, env: { OS_KEYSTONE_CONFIG_FILES: join(dir, 'keystone.conf') } });
  return {
    files: { keystone: { 'keystone.conf': conf, 'keystone-uwsgi.ini': ini }, 'keystone/fernet-keys': {}, 'keystone/credential-keys': {} },
    daemons: [uwsgiDaemon(l, 'keystone', 'keystone', 'keystone', l.ports.keystone, '/v3', 1)],
  };
}

export function placement(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'placement');
  const conf = renderIni({
    DEFAULT: LOGGING,
    api: { auth_strategy: 'keystone' },
    placement_database: { connection: dbUrl(l.ports, 'placement') },
    keystone_authtoken: authtoken(l.ports, 'placement'),
  });
  const ini = uwsgiIni({ port: l.ports.placement, script: '/usr/bin/placement-api', dir, processes: 2, env: { OS_PLACEMENT_CONFIG_DIR: dir } });
  return {
    files: { placement: { 'placement.conf': conf, 'placement-api-uwsgi.ini': ini } },
    daemons: [uwsgiDaemon(l, 'placement', 'placement-api', 'placement', l.ports.placement)],
  };
}

export function nova(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'nova');
  const ini: Ini = {
    DEFAULT: {
      ...common(l),
      // Nova's fake driver reports 1000 vCPUs, 800000 MB of RAM and 600000 GB of disk, and makes a server
      // ACTIVE as soon as it is spawned; nothing boots.
      compute_driver: 'fake.FakeDriver',
      enabled_apis: 'osapi_compute',
      my_ip: HOST,
      host: COMPUTE_HOST,
      state_path: join(dir, 'state'),
      instances_path: join(dir, 'state', 'instances'),
      allow_resize_to_same_host: true,
    },
    api: { auth_strategy: 'keystone' },
    api_database: { connection: dbUrl(l.ports, 'nova_api') },
    database: { connection: dbUrl(l.ports, 'nova') },
    conductor: { workers: 1 },
    scheduler: { workers: 1, discover_hosts_in_cells_interval: 2 },
    vnc: { enabled: false },
    wsgi: { api_paste_config: '/etc/nova/api-paste.ini' },
    oslo_concurrency: { lock_path: join(dir, 'lock') },
    oslo_messaging_notifications: noNotifications,
    keystone_authtoken: authtoken(l.ports, 'nova'),
    service_user: { send_service_user_token: true, ...serviceAuth(l.ports, 'nova') },
    placement: serviceAuth(l.ports, 'placement'),
    neutron: serviceAuth(l.ports, 'neutron'),
    glance: { region_name: 'RegionOne' },
    cinder: { os_region_name: 'RegionOne', ...serviceAuth(l.ports, 'cinder') },
  };
  // The compute service reaches the database only through the conductor: its file has no database (as
  // devstack's nova-cpu.conf), or it logs "No DB access allowed in nova-compute".
  const { database: _db, api_database: _api, keystone_authtoken: _kat, ...computeIni } = ini;
  // Nova's WSGI app loads its paste pipeline from the first of these files (so api-paste.ini comes first).
  const uwsgi = uwsgiIni({ port: l.ports.nova, script: '/usr/bin/nova-api-wsgi', dir, processes: 2, env: { OS_NOVA_CONFIG_DIR: dir, OS_NOVA_CONFIG_FILES: '/etc/nova/api-paste.ini;nova.conf' } });
  const cf = ['--config-file', join(dir, 'nova.conf')];
  return {
    files: {
      nova: { 'nova.conf': renderIni(ini), 'nova-compute.conf': renderIni(computeIni), 'nova-api-uwsgi.ini': uwsgi },
      'nova/state/instances': {},
      'nova/lock': {},
    },
    daemons: [
      uwsgiDaemon(l, 'nova', 'nova-api', 'nova', l.ports.nova),
      pythonDaemon(l, 'nova', 'nova-conductor', 'nova', ['/usr/bin/nova-conductor', ...cf]),
      pythonDaemon(l, 'nova', 'nova-scheduler', 'nova', ['/usr/bin/nova-scheduler', ...cf]),
      // The nova-compute package would pull a hypervisor: python3-nova's entry point is enough for the fake one.
      pythonDaemon(l, 'nova', 'nova-compute', 'nova', ['-c', 'import sys; from nova.cmd.compute import main; sys.exit(main())', '--config-file', join(dir, 'nova-compute.conf')]),
    ],
  };
}

export function neutron(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'neutron');
  const conf = renderIni({
    DEFAULT: {
      ...common(l),
      bind_host: HOST,
      bind_port: l.ports.neutron,
      core_plugin: 'ml2',
      // auto_allocate carries the networks' is_default attribute (the default external network).
      service_plugins: 'router,auto_allocate',
      auth_strategy: 'keystone',
      api_paste_config: '/etc/neutron/api-paste.ini',
      state_path: join(dir, 'state'),
      api_workers: 1,
      rpc_workers: 1,
      rpc_state_report_workers: 0,
      // No agents and no Nova notifications: ports, routers and floating IPs are database objects.
      notify_nova_on_port_status_changes: false,
      notify_nova_on_port_data_changes: false,
      dhcp_agent_notification: false,
      allow_overlapping_ips: true,
      router_distributed: false,
      l3_ha: false,
    },
    database: { connection: dbUrl(l.ports, 'neutron') },
    keystone_authtoken: authtoken(l.ports, 'neutron'),
    nova: serviceAuth(l.ports, 'nova'),
    oslo_concurrency: { lock_path: join(dir, 'lock') },
    oslo_messaging_notifications: noNotifications,
    ml2: {
      type_drivers: 'flat,vxlan',
      tenant_network_types: 'vxlan',
      // Binds every port (vif_type ovs, ACTIVE): python/realos_ml2_bind_all.py.
      mechanism_drivers: 'realos_bind_all',
      extension_drivers: 'port_security',
    },
    ml2_type_flat: { flat_networks: 'public' },
    ml2_type_vxlan: { vni_ranges: '1:10000' },
    securitygroup: { firewall_driver: 'noop', enable_security_group: true },
  });
  return {
    files: { neutron: { 'neutron.conf': conf }, 'neutron/state': {}, 'neutron/lock': {} },
    daemons: [{
      ...pythonDaemon(l, 'neutron', 'neutron-server', 'neutron', ['/usr/bin/neutron-server', '--config-file', join(dir, 'neutron.conf')], { PYTHONPATH: l.python }),
      ready: answers(url(l.ports.neutron, '/')),
      readyWithinMs: 120_000,
      tier: 2,
    }],
  };
}

export function glance(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'glance');
  const conf = renderIni({
    DEFAULT: { ...LOGGING, bind_host: HOST, bind_port: l.ports.glance, workers: 1, enabled_backends: 'fs:file' },
    database: { connection: dbUrl(l.ports, 'glance') },
    glance_store: { default_backend: 'fs' },
    fs: { filesystem_store_datadir: join(dir, 'images') },
    os_glance_staging_store: { filesystem_store_datadir: join(dir, 'staging') },
    os_glance_tasks_store: { filesystem_store_datadir: join(dir, 'tasks') },
    paste_deploy: { config_file: '/etc/glance/glance-api-paste.ini', flavor: 'keystone' },
    keystone_authtoken: authtoken(l.ports, 'glance'),
    oslo_concurrency: { lock_path: join(dir, 'lock') },
    oslo_messaging_notifications: noNotifications,
  });
  return {
    files: { glance: { 'glance-api.conf': conf }, 'glance/images': {}, 'glance/staging': {}, 'glance/tasks': {}, 'glance/lock': {} },
    daemons: [{
      ...pythonDaemon(l, 'glance', 'glance-api', 'glance', ['/usr/bin/glance-api', '--config-file', join(dir, 'glance-api.conf')]),
      ready: answers(url(l.ports.glance, '/')),
      readyWithinMs: 90_000,
      tier: 2,
    }],
  };
}

export function cinder(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'cinder');
  const conf = renderIni({
    DEFAULT: {
      ...common(l),
      auth_strategy: 'keystone',
      state_path: join(dir, 'state'),
      api_paste_config: '/etc/cinder/api-paste.ini',
      enabled_backends: 'fake',
      my_ip: HOST,
      host: VOLUME_HOST,
      glance_api_servers: url(l.ports.glance),
      osapi_volume_workers: 1,
    },
    // Cinder's own logging driver over a fake LVM: volumes are database rows, no LVM, no iSCSI.
    fake: { volume_driver: 'cinder.tests.fake_driver.FakeLoggingVolumeDriver', volume_backend_name: 'fake' },
    database: { connection: dbUrl(l.ports, 'cinder') },
    keystone_authtoken: authtoken(l.ports, 'cinder'),
    nova: serviceAuth(l.ports, 'nova'),
    oslo_concurrency: { lock_path: join(dir, 'lock') },
    oslo_messaging_notifications: noNotifications,
    coordination: { backend_url: `file://${join(dir, 'lock')}` },
  });
  const ini = uwsgiIni({ port: l.ports.cinder, script: '/usr/bin/cinder-wsgi', dir, processes: 1, pyargv: `--config-file ${join(dir, 'cinder.conf')}` });
  const cf = ['--config-file', join(dir, 'cinder.conf')];
  return {
    files: { cinder: { 'cinder.conf': conf, 'cinder-api-uwsgi.ini': ini }, 'cinder/state': {}, 'cinder/lock': {} },
    daemons: [
      uwsgiDaemon(l, 'cinder', 'cinder-api', 'cinder', l.ports.cinder),
      pythonDaemon(l, 'cinder', 'cinder-scheduler', 'cinder', ['/usr/bin/cinder-scheduler', ...cf]),
      pythonDaemon(l, 'cinder', 'cinder-volume', 'cinder', ['/usr/bin/cinder-volume', ...cf]),
    ],
  };
}

/** The services, in start order within each tier. */
export const OPENSTACK = [keystone, placement, nova, neutron, glance, octavia, cinder];
