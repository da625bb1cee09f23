import type { MigrationInterface, QueryRunner } from 'typeorm';

export class Initial1763780000000 implements MigrationInterface {
  name = 'Initial1763780000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE cluster_template (
        id serial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        name varchar(255) NOT NULL,
        project_id varchar(255) NOT NULL,
        user_id varchar(255) NOT NULL,
        coe varchar(255) NOT NULL,
        image_id varchar(255) NOT NULL,
        flavor_id varchar(255),
        master_flavor_id varchar(255),
        keypair_id varchar(255),
        dns_nameserver varchar(255),
        external_network_id varchar(255),
        fixed_network varchar(255),
        fixed_subnet varchar(255),
        network_driver varchar(255),
        volume_driver varchar(255),
        apiserver_port integer,
        docker_volume_size integer,
        docker_storage_driver varchar(255),
        cluster_distro varchar(255),
        http_proxy varchar(255),
        https_proxy varchar(255),
        no_proxy varchar(255),
        insecure_registry varchar(255),
        registry_enabled boolean NOT NULL DEFAULT false,
        tls_disabled boolean NOT NULL DEFAULT false,
        public boolean NOT NULL DEFAULT false,
        master_lb_enabled boolean NOT NULL DEFAULT false,
        floating_ip_enabled boolean NOT NULL DEFAULT true,
        hidden boolean NOT NULL DEFAULT false,
        server_type varchar(255) NOT NULL DEFAULT 'vm',
        labels jsonb NOT NULL DEFAULT '{}'::jsonb,
        tags varchar(255),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz
      )`);
    await q.query(`CREATE INDEX cluster_template_project_idx ON cluster_template (project_id)`);
    await q.query(`CREATE INDEX cluster_template_name_idx ON cluster_template (name)`);
    await q.query(`
      CREATE TABLE cluster (
        id serial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        name varchar(255) NOT NULL,
        project_id varchar(255) NOT NULL,
        user_id varchar(255) NOT NULL,
        cluster_template_id uuid NOT NULL REFERENCES cluster_template (uuid),
        status varchar(32) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz
      )`);
    await q.query(`CREATE INDEX cluster_project_idx ON cluster (project_id)`);
    await q.query(`CREATE INDEX cluster_template_ref_idx ON cluster (cluster_template_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE cluster');
    await q.query('DROP TABLE cluster_template');
  }
}
