import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Whose application credential a cluster holds: Keystone keeps a credential under its owner
 * (/v3/users/{owner}/application_credentials/{id}), and a rotation by another member of the project
 * makes one owned by that member. `app_cred_user_id` names the owner of the current one (until now
 * always the creator: filled from user_id); `retired_app_creds` lists credentials a rotation replaced
 * that are still to be deleted (each `{"id", "user_id"}`), once nothing in the cluster uses them, or
 * with the cluster.
 */
export class ClusterCredentialOwner1763850000000 implements MigrationInterface {
  name = 'ClusterCredentialOwner1763850000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE cluster ADD COLUMN app_cred_user_id varchar(64)`);
    await q.query(`ALTER TABLE cluster ADD COLUMN retired_app_creds jsonb NOT NULL DEFAULT '[]'::jsonb`);
    await q.query(`UPDATE cluster SET app_cred_user_id = user_id WHERE app_cred_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE cluster DROP COLUMN retired_app_creds');
    await q.query('ALTER TABLE cluster DROP COLUMN app_cred_user_id');
  }
}
