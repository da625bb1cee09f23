// What the OpenStack services run on: a MariaDB of the cloud's own (its own datadir, port and socket) and a
// RabbitMQ node of its own (its own node name, ports, Erlang port mapper and cookie), all on loopback.
import { join } from 'node:path';
import { HOST, SECRETS, dirOf, type Layout } from './layout.js';
import { portOpen, type Daemon } from './procs.js';

/** A daemon of the cloud with what says it is ours and up. */
export interface CloudDaemon extends Daemon {
  /** A string its (or its tracked node's) command line holds: the PID file is trusted only then. */
  mark: string;
  /** The process to check and stop, when not the one started (RabbitMQ's node, its launcher's child). */
  trackedAs?: string;
  ready: () => Promise<boolean>;
  readyWithinMs: number;
  /**
   * Start order: 0 infrastructure, 1 Keystone, 2 the other APIs, 3 the services that use them, started once
   * Placement answers (Nova's compute reports to it when it starts). Stopped in the reverse order.
   */
  tier: 0 | 1 | 2 | 3;
}

export interface ServiceFiles {
  /** Folder (under live/) → file name → content. */
  files: Record<string, Record<string, string>>;
  daemons: CloudDaemon[];
}

export function mariadb(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'mariadb');
  const data = join(dir, 'data');
  return {
    files: {},
    daemons: [{
      name: 'mariadb',
      dir,
      user: 'mysql',
      cmd: '/usr/sbin/mariadbd',
      args: [
        '--no-defaults',
        `--datadir=${data}`,
        `--bind-address=${HOST}`,
        `--port=${l.ports.mariadb}`,
        `--socket=${join(dir, 'mysqld.sock')}`,
        `--pid-file=${join(dir, 'mysqld.pid')}`,
        '--skip-name-resolve',
        '--character-set-server=utf8mb4',
        '--collation-server=utf8mb4_general_ci',
        '--max-connections=1000',
        // A test cloud: no durability needed, small footprint.
        '--innodb-flush-log-at-trx-commit=0',
        '--innodb-doublewrite=0',
        '--innodb-buffer-pool-size=256M',
        '--innodb-log-file-size=32M',
        '--skip-log-bin',
      ],
      mark: data,
      ready: () => portOpen(l.ports.mariadb),
      readyWithinMs: 60_000,
      tier: 0,
    }],
  };
}

/** The mariadb-install-db arguments that make an empty datadir for `mariadb` above. */
export function mariadbInstallArgs(l: Layout): string[] {
  return [
    '--no-defaults',
    `--datadir=${join(dirOf(l, 'mariadb'), 'data')}`,
    '--user=mysql',
    '--auth-root-authentication-method=normal',
    '--skip-test-db',
  ];
}

export const mariadbSocket = (l: Layout) => join(dirOf(l, 'mariadb'), 'mysqld.sock');

export function rabbitmq(l: Layout): ServiceFiles {
  const dir = dirOf(l, 'rabbitmq');
  const home = join(dir, 'home');
  const erlEnv = { ERL_EPMD_PORT: String(l.ports.epmd), ERL_EPMD_ADDRESS: HOST, HOME: home };
  const conf = [
    `listeners.tcp.1 = ${HOST}:${l.ports.rabbitmq}`,
    'default_user = openstack',
    `default_pass = ${SECRETS.rabbit}`,
    'default_vhost = /',
    'loopback_users = none',
    'log.console = false',
    'log.file.level = info',
    // A test machine's disk may be fuller than the default 50 MB watermark assumes.
    'disk_free_limit.absolute = 1MB',
    '',
  ].join('\n');
  return {
    files: {
      rabbitmq: { 'rabbitmq.conf': conf, enabled_plugins: '[].\n' },
      'rabbitmq/home': { '.erlang.cookie': 'MAGNUMTSREALOPENSTACKCOOKIE' },
      'rabbitmq/mnesia': {},
      'rabbitmq/log': {},
    },
    daemons: [
      {
        // Started by us (not by the node) so that it binds loopback only and is stopped with the cloud.
        name: 'epmd',
        dir,
        user: 'rabbitmq',
        cmd: '/usr/bin/epmd',
        args: ['-port', String(l.ports.epmd), '-address', HOST],
        env: erlEnv,
        mark: `-port ${l.ports.epmd}`,
        ready: () => portOpen(l.ports.epmd),
        readyWithinMs: 20_000,
        tier: 0,
      },
      {
        name: 'rabbitmq',
        dir,
        user: 'rabbitmq',
        cmd: '/usr/lib/rabbitmq/bin/rabbitmq-server',
        args: [],
        env: {
          ...erlEnv,
          RABBITMQ_NODENAME: `realos${l.ports.rabbitmq}@localhost`,
          RABBITMQ_NODE_IP_ADDRESS: HOST,
          RABBITMQ_NODE_PORT: String(l.ports.rabbitmq),
          RABBITMQ_DIST_PORT: String(l.ports.rabbitmqDist),
          RABBITMQ_CONFIG_FILE: join(dir, 'rabbitmq.conf'),
          RABBITMQ_ENABLED_PLUGINS_FILE: join(dir, 'enabled_plugins'),
          RABBITMQ_MNESIA_BASE: join(dir, 'mnesia'),
          RABBITMQ_LOG_BASE: join(dir, 'log'),
          RABBITMQ_PID_FILE: join(dir, 'rabbitmq-node.pid'),
          RABBITMQ_CONF_ENV_FILE: '/dev/null',
          RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS: '-kernel inet_dist_use_interface {127,0,0,1}',
        },
        // The launcher script may exit once the node runs: the node (beam, its -home naming our folder) is
        // what is tracked, through the PID file RabbitMQ writes, and its AMQP port.
        mark: home,
        trackedAs: 'rabbitmq-node',
        ready: () => portOpen(l.ports.rabbitmq),
        readyWithinMs: 90_000,
        tier: 0,
      },
    ],
  };
}
