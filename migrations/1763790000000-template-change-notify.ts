import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Every change to cluster templates notifies `cluster_template_changed` (read caches listen). */
export class TemplateChangeNotify1763790000000 implements MigrationInterface {
  name = 'TemplateChangeNotify1763790000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE FUNCTION notify_cluster_template_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('cluster_template_changed', TG_OP);
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER cluster_template_changed
      AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON cluster_template
      FOR EACH STATEMENT EXECUTE FUNCTION notify_cluster_template_changed()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TRIGGER cluster_template_changed ON cluster_template');
    await q.query('DROP FUNCTION notify_cluster_template_changed()');
  }
}
