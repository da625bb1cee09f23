import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The relay claims operations instead of locking them while it talks to Redis: a claim is a token
 * and a lease (`claim_token`, `claimed_until`) written and committed in one statement; the relay
 * then publishes with no transaction open, and marks what it published queued (or lets the claim
 * go). A claim whose relay died lapses with its lease and another relay takes the row. The recovery
 * of handed-over operations whose job ended claims its rows the same way.
 */
export class OutboxClaims1763860000000 implements MigrationInterface {
  name = 'OutboxClaims1763860000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE operation ADD COLUMN claim_token uuid');
    await q.query('ALTER TABLE operation ADD COLUMN claimed_until timestamptz');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE operation DROP COLUMN claimed_until');
    await q.query('ALTER TABLE operation DROP COLUMN claim_token');
  }
}
