import { EntitySchema } from 'typeorm';

export interface ClusterTemplateRow {
  id: number;
  uuid: string;
  name: string;
  project_id: string;
  user_id: string;
  coe: string;
  image_id: string;
  flavor_id: string | null;
  master_flavor_id: string | null;
  keypair_id: string | null;
  dns_nameserver: string | null;
  external_network_id: string | null;
  fixed_network: string | null;
  fixed_subnet: string | null;
  network_driver: string | null;
  volume_driver: string | null;
  apiserver_port: number | null;
  docker_volume_size: number | null;
  docker_storage_driver: string | null;
  cluster_distro: string | null;
  http_proxy: string | null;
  https_proxy: string | null;
  no_proxy: string | null;
  insecure_registry: string | null;
  registry_enabled: boolean;
  tls_disabled: boolean;
  public: boolean;
  master_lb_enabled: boolean;
  floating_ip_enabled: boolean;
  hidden: boolean;
  server_type: string;
  labels: Record<string, string>;
  tags: string | null;
  created_at: Date;
  updated_at: Date | null;
}

const nstr = (length = 255) => ({ type: 'varchar' as const, length, nullable: true });

export const ClusterTemplateEntity = new EntitySchema<ClusterTemplateRow>({
  name: 'ClusterTemplate',
  tableName: 'cluster_template',
  columns: {
    id: { type: 'int', primary: true, generated: 'increment' },
    uuid: { type: 'uuid', unique: true },
    name: { type: 'varchar', length: 255 },
    project_id: { type: 'varchar', length: 255 },
    user_id: { type: 'varchar', length: 255 },
    coe: { type: 'varchar', length: 255 },
    image_id: { type: 'varchar', length: 255 },
    flavor_id: nstr(),
    master_flavor_id: nstr(),
    keypair_id: nstr(),
    dns_nameserver: nstr(),
    external_network_id: nstr(),
    fixed_network: nstr(),
    fixed_subnet: nstr(),
    network_driver: nstr(),
    volume_driver: nstr(),
    apiserver_port: { type: 'int', nullable: true },
    docker_volume_size: { type: 'int', nullable: true },
    docker_storage_driver: nstr(),
    cluster_distro: nstr(),
    http_proxy: nstr(),
    https_proxy: nstr(),
    no_proxy: nstr(),
    insecure_registry: nstr(),
    registry_enabled: { type: 'boolean' },
    tls_disabled: { type: 'boolean' },
    public: { type: 'boolean' },
    master_lb_enabled: { type: 'boolean' },
    floating_ip_enabled: { type: 'boolean' },
    hidden: { type: 'boolean' },
    server_type: { type: 'varchar', length: 255 },
    labels: { type: 'jsonb' },
    tags: nstr(),
    created_at: { type: 'timestamptz' },
    updated_at: { type: 'timestamptz', nullable: true },
  },
});
