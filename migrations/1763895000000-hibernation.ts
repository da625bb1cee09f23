import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hibernation (issue 28): whether a cluster is hibernated (its servers shelved) and since when, its schedule
 * (cron-like hibernate and wake times in an IANA time zone) and the scheduler's last firings, so a restarted
 * worker never fires the same minute twice.
 */
export class Hibernation1763895000000 implements MigrationInterface {
  name = 'Hibernation1763895000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cluster
      ADD COLUMN hibernation varchar(16) NOT NULL DEFAULT 'awake',
      ADD COLUMN hibernated_at timestamptz NULL,
      ADD COLUMN hibernation_schedule jsonb NULL,
      ADD COLUMN schedule_fired jsonb NOT NULL DEFAULT '{}'::jsonb`);
    await q.query('CREATE INDEX cluster_hibernation_schedule ON cluster (id) WHERE hibernation_schedule IS NOT NULL');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP INDEX cluster_hibernation_schedule');
    await q.query('ALTER TABLE cluster DROP COLUMN hibernation, DROP COLUMN hibernated_at, DROP COLUMN hibernation_schedule, DROP COLUMN schedule_fired');
  }
}
