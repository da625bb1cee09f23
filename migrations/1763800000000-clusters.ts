import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The cluster API's state: the full cluster row, node groups, per-cluster CAs (keys encrypted),
 * quotas, the operation outbox (one active operation per cluster), and the event timeline.
 */
export class Clusters1763800000000 implements MigrationInterface {
  name = 'Clusters1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE cluster
        ADD COLUMN keypair varchar(255),
        ADD COLUMN docker_volume_size integer,
        ADD COLUMN labels jsonb NOT NULL DEFAULT '{}'::jsonb,
        ADD COLUMN master_flavor_id varchar(255),
        ADD COLUMN flavor_id varchar(255),
        ADD COLUMN create_timeout integer NOT NULL DEFAULT 60,
        ADD COLUMN discovery_url varchar(255),
        ADD COLUMN stack_id varchar(255),
        ADD COLUMN status_reason text,
        ADD COLUMN health_status varchar(20),
        ADD COLUMN health_status_reason jsonb,
        ADD COLUMN health_checked_at timestamptz,
        ADD COLUMN api_address varchar(255),
        ADD COLUMN coe_version varchar(255),
        ADD COLUMN container_version varchar(255),
        ADD COLUMN fixed_network varchar(255),
        ADD COLUMN fixed_subnet varchar(255),
        ADD COLUMN floating_ip_enabled boolean NOT NULL DEFAULT true,
        ADD COLUMN master_lb_enabled boolean NOT NULL DEFAULT false,
        ADD COLUMN conditions jsonb NOT NULL DEFAULT '{}'::jsonb,
        ADD COLUMN app_cred_id varchar(64),
        ADD COLUMN app_cred_secret text
    `);
    await q.query(`CREATE INDEX cluster_name_idx ON cluster (name)`);

    await q.query(`
      CREATE TABLE nodegroup (
        id serial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        name varchar(255) NOT NULL,
        cluster_id uuid NOT NULL REFERENCES cluster (uuid) ON DELETE CASCADE,
        project_id varchar(255) NOT NULL,
        docker_volume_size integer,
        labels jsonb NOT NULL DEFAULT '{}'::jsonb,
        flavor_id varchar(255),
        image_id varchar(255),
        node_addresses jsonb NOT NULL DEFAULT '[]'::jsonb,
        node_count integer NOT NULL,
        role varchar(255) NOT NULL,
        min_node_count integer NOT NULL DEFAULT 0,
        max_node_count integer,
        is_default boolean NOT NULL DEFAULT false,
        stack_id varchar(255),
        status varchar(32),
        status_reason text,
        version varchar(20),
        node_labels jsonb,
        node_taints jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz,
        CONSTRAINT nodegroup_name_per_cluster UNIQUE (cluster_id, name)
      )`);
    await q.query(`CREATE INDEX nodegroup_project_idx ON nodegroup (project_id)`);

    // kind: kubernetes | etcd | front_proxy | service_account. key = AES-GCM sealed PEM.
    await q.query(`
      CREATE TABLE cluster_certificate (
        cluster_id uuid NOT NULL REFERENCES cluster (uuid) ON DELETE CASCADE,
        kind varchar(32) NOT NULL,
        cert text NOT NULL,
        key text NOT NULL,
        generation integer NOT NULL DEFAULT 1,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (cluster_id, kind)
      )`);

    await q.query(`
      CREATE TABLE quota (
        id serial PRIMARY KEY,
        project_id varchar(255) NOT NULL,
        resource varchar(255) NOT NULL,
        hard_limit integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz,
        CONSTRAINT quota_project_resource UNIQUE (project_id, resource)
      )`);

    // The outbox: written in the same transaction as the intent, relayed to BullMQ (job id = id).
    // state: pending (not yet on the queue) → queued → running → succeeded | failed | cancelled.
    await q.query(`
      CREATE TABLE operation (
        id uuid PRIMARY KEY,
        cluster_id uuid NOT NULL REFERENCES cluster (uuid) ON DELETE CASCADE,
        kind varchar(32) NOT NULL,
        params jsonb NOT NULL DEFAULT '{}'::jsonb,
        state varchar(16) NOT NULL,
        error text,
        attempts integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz,
        enqueued_at timestamptz,
        started_at timestamptz,
        finished_at timestamptz
      )`);
    // One active operation per cluster; a delete may overtake it (it cancels what runs), once.
    await q.query(`
      CREATE UNIQUE INDEX operation_one_active ON operation (cluster_id)
        WHERE state IN ('pending', 'queued', 'running') AND kind <> 'delete'`);
    await q.query(`
      CREATE UNIQUE INDEX operation_one_delete ON operation (cluster_id)
        WHERE state IN ('pending', 'queued', 'running') AND kind = 'delete'`);
    await q.query(`CREATE INDEX operation_pending_idx ON operation (created_at) WHERE state = 'pending'`);
    await q.query(`
      CREATE FUNCTION operation_pending_notify() RETURNS trigger AS $$
      BEGIN
        PERFORM pg_notify('operation_pending', NEW.id::text);
        RETURN NULL;
      END $$ LANGUAGE plpgsql`);
    await q.query(`
      CREATE TRIGGER operation_pending_notify AFTER INSERT ON operation
        FOR EACH ROW WHEN (NEW.state = 'pending') EXECUTE FUNCTION operation_pending_notify()`);

    await q.query(`
      CREATE TABLE cluster_event (
        id bigserial PRIMARY KEY,
        cluster_id uuid NOT NULL REFERENCES cluster (uuid) ON DELETE CASCADE,
        operation_id uuid,
        at timestamptz NOT NULL DEFAULT now(),
        type varchar(64) NOT NULL,
        reason varchar(128) NOT NULL,
        message text NOT NULL,
        severity varchar(16) NOT NULL DEFAULT 'info'
      )`);
    await q.query(`CREATE INDEX cluster_event_cluster_idx ON cluster_event (cluster_id, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE cluster_event');
    await q.query('DROP TRIGGER operation_pending_notify ON operation');
    await q.query('DROP FUNCTION operation_pending_notify()');
    await q.query('DROP TABLE operation');
    await q.query('DROP TABLE quota');
    await q.query('DROP TABLE cluster_certificate');
    await q.query('DROP TABLE nodegroup');
    await q.query('DROP INDEX cluster_name_idx');
    await q.query(`
      ALTER TABLE cluster
        DROP COLUMN keypair, DROP COLUMN docker_volume_size, DROP COLUMN labels, DROP COLUMN master_flavor_id,
        DROP COLUMN flavor_id, DROP COLUMN create_timeout, DROP COLUMN discovery_url, DROP COLUMN stack_id,
        DROP COLUMN status_reason, DROP COLUMN health_status, DROP COLUMN health_status_reason,
        DROP COLUMN health_checked_at, DROP COLUMN api_address, DROP COLUMN coe_version,
        DROP COLUMN container_version, DROP COLUMN fixed_network, DROP COLUMN fixed_subnet,
        DROP COLUMN floating_ip_enabled, DROP COLUMN master_lb_enabled, DROP COLUMN conditions,
        DROP COLUMN app_cred_id, DROP COLUMN app_cred_secret
    `);
  }
}
