import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Live views (the portal's Server-Sent Events): every change of a cluster row or of one of its node
 * groups notifies `cluster_changed` with `{"c": uuid, "p": project_id, "op": "I"|"U"|"D"}`, and
 * every new event of a cluster's timeline notifies `cluster_event_added` with `{"c": uuid, "id": n}`.
 * A change made by any worker process reaches every API process's LISTEN connection. Updates that
 * change nothing a reader sees (the same row written again) do not notify.
 */
export class ClusterChangeNotify1763830000000 implements MigrationInterface {
  name = 'ClusterChangeNotify1763830000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_cluster_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        r record;
        cluster uuid;
      BEGIN
        IF TG_OP = 'DELETE' THEN r := OLD; ELSE r := NEW; END IF;
        IF TG_OP = 'UPDATE' AND OLD IS NOT DISTINCT FROM NEW THEN RETURN NULL; END IF;
        IF TG_TABLE_NAME = 'cluster' THEN cluster := r.uuid; ELSE cluster := r.cluster_id; END IF;
        PERFORM pg_notify('cluster_changed', json_build_object('c', cluster, 'p', r.project_id, 'op', left(TG_OP, 1), 't', left(TG_TABLE_NAME, 1))::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER cluster_changed AFTER INSERT OR UPDATE OR DELETE ON cluster
      FOR EACH ROW EXECUTE FUNCTION notify_cluster_changed()`);
    await q.query(`
      CREATE TRIGGER nodegroup_changed AFTER INSERT OR UPDATE OR DELETE ON nodegroup
      FOR EACH ROW EXECUTE FUNCTION notify_cluster_changed()`);
    await q.query(`
      CREATE FUNCTION notify_cluster_event_added() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('cluster_event_added', json_build_object('c', NEW.cluster_id, 'id', NEW.id)::text);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER cluster_event_added AFTER INSERT ON cluster_event
      FOR EACH ROW EXECUTE FUNCTION notify_cluster_event_added()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER cluster_event_added ON cluster_event');
    await q.query('DROP FUNCTION notify_cluster_event_added()');
    await q.query('DROP TRIGGER nodegroup_changed ON nodegroup');
    await q.query('DROP TRIGGER cluster_changed ON cluster');
    await q.query('DROP FUNCTION notify_cluster_changed()');
  }
}
