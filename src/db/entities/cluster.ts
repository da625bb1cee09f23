import { EntitySchema } from 'typeorm';
import type { Conditions } from '../../domain/cluster-status.js';
import type { WeeklyWindow } from '../../domain/maintenance-window.js';

export interface ClusterRow {
  id: number;
  uuid: string;
  name: string;
  project_id: string;
  user_id: string;
  cluster_template_id: string;
  keypair: string | null;
  docker_volume_size: number | null;
  labels: Record<string, string>;
  master_flavor_id: string | null;
  flavor_id: string | null;
  create_timeout: number;
  discovery_url: string | null;
  stack_id: string | null;
  /** Derived from the current operation and `conditions` (src/domain/cluster-status.ts); stored for sorting. */
  status: string;
  status_reason: string | null;
  health_status: string | null;
  health_status_reason: Record<string, string> | null;
  health_checked_at: Date | null;
  /** Auto-healing: server name → since when the health check has found it unhealthy. */
  unhealthy_since: Record<string, string>;
  api_address: string | null;
  coe_version: string | null;
  container_version: string | null;
  fixed_network: string | null;
  fixed_subnet: string | null;
  floating_ip_enabled: boolean;
  master_lb_enabled: boolean;
  conditions: Conditions;
  /** The cluster's Keystone application credential; the secret is sealed (src/security/secret-box.ts). */
  app_cred_id: string | null;
  app_cred_secret: string | null;
  /** Its owner in Keystone (the creator, or the member who rotated it): the user it is deleted under. */
  app_cred_user_id: string | null;
  /** Credentials a rotation replaced, still to delete (once nothing in the cluster uses them, or with the cluster). */
  retired_app_creds: RetiredCredential[];
  /**
   * 'hibernated' from the acceptance of a hibernate until a wake succeeds (its servers shelved, or on the way
   * there or back); 'awake' otherwise. An extension: Magnum's status stays a settled one.
   */
  hibernation: Hibernation;
  /** When the last hibernate was accepted (null when awake). */
  hibernated_at: Date | null;
  /** The cluster's hibernation schedule (src/domain/hibernation-schedule.ts); null: none. */
  hibernation_schedule: HibernationSchedule | null;
  /** The scheduler's last firing of each action (ISO minute), so a restart does not fire it twice. */
  schedule_fired: Record<string, string>;
  /** Its weekly maintenance window and automatic upgrade (src/domain/maintenance-window.ts); null: none. */
  maintenance: MaintenanceSettings | null;
  /**
   * The start of the latest window the worker claimed (ran, or recorded as skipped), or when the settings were
   * set: a window that starts at or before it never runs, so a restart or a second worker never runs one twice.
   */
  maintenance_claimed: Date | null;
  /** What the latest window did, or what it waits for while it is open. */
  maintenance_last: MaintenanceRun | null;
  created_at: Date;
  updated_at: Date | null;
}

export type Hibernation = 'awake' | 'hibernated';

/** Cron-like times (five fields, minute hour day-of-month month day-of-week) in an IANA time zone. */
export interface HibernationSchedule {
  hibernate: string | null;
  wake: string | null;
  timezone: string;
}

/** A weekly window in an IANA time zone and what runs in it. */
export interface MaintenanceSettings {
  window: WeeklyWindow;
  upgrade: UpgradePolicy;
}

/** none: nothing runs; latest_patch: the newest patch of the running minor; template: the chosen one (its UUID). */
export interface UpgradePolicy {
  auto_upgrade: 'none' | 'latest_patch' | 'template';
  cluster_template_id: string | null;
}

/** waiting: open, the cluster busy; started: the upgrade began; nothing: no upgrade to run; refused: the upgrade's checks refused it; skipped: busy the whole window. */
export type MaintenanceOutcome = 'waiting' | 'started' | 'nothing' | 'refused' | 'skipped';

export interface MaintenanceRun {
  window_start: string;
  outcome: MaintenanceOutcome;
  reason: string | null;
  /** The upgrade begun: its template and versions. */
  upgrade: { cluster_template_id: string; name: string; from: string; to: string } | null;
  at: string;
}

/** An application credential and its owner in Keystone. */
export interface RetiredCredential {
  id: string;
  user_id: string;
}

const str = (length = 255) => ({ type: 'varchar' as const, length, nullable: true });

export const ClusterEntity = new EntitySchema<ClusterRow>({
  name: 'Cluster',
  tableName: 'cluster',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    uuid: { type: 'uuid', unique: true },
    name: { type: 'varchar', length: 255 },
    project_id: { type: 'varchar', length: 255 },
    user_id: { type: 'varchar', length: 255 },
    cluster_template_id: { type: 'uuid' },
    keypair: str(),
    docker_volume_size: { type: 'int', nullable: true },
    labels: { type: 'jsonb' },
    master_flavor_id: str(),
    flavor_id: str(),
    create_timeout: { type: 'int' },
    discovery_url: str(),
    stack_id: str(),
    status: { type: 'varchar', length: 32 },
    status_reason: { type: 'text', nullable: true },
    health_status: str(20),
    health_status_reason: { type: 'jsonb', nullable: true },
    health_checked_at: { type: 'timestamptz', nullable: true },
    unhealthy_since: { type: 'jsonb', default: () => "'{}'::jsonb" },
    api_address: str(),
    coe_version: str(),
    container_version: str(),
    fixed_network: str(),
    fixed_subnet: str(),
    floating_ip_enabled: { type: 'boolean' },
    master_lb_enabled: { type: 'boolean' },
    conditions: { type: 'jsonb' },
    app_cred_id: str(64),
    app_cred_secret: { type: 'text', nullable: true },
    app_cred_user_id: str(64),
    retired_app_creds: { type: 'jsonb', default: () => "'[]'::jsonb" },
    hibernation: { type: 'varchar', length: 16, default: 'awake' },
    hibernated_at: { type: 'timestamptz', nullable: true },
    hibernation_schedule: { type: 'jsonb', nullable: true },
    schedule_fired: { type: 'jsonb', default: () => "'{}'::jsonb" },
    maintenance: { type: 'jsonb', nullable: true },
    maintenance_claimed: { type: 'timestamptz', nullable: true },
    maintenance_last: { type: 'jsonb', nullable: true },
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz', nullable: true },
  },
});

/** Columns a list may sort by (Magnum: any column); secrets and internal state are not offered. */
export const CLUSTER_SORTABLE = new Set(
  Object.keys(ClusterEntity.options.columns).filter((c) => !['app_cred_id', 'app_cred_secret', 'app_cred_user_id', 'retired_app_creds', 'conditions', 'health_checked_at', 'unhealthy_since'].includes(c)),
);
