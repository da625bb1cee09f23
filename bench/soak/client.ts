// The soak's user: calls the API processes as a careful client would while they, PostgreSQL and
// Redis come and go. A call that got no answer or a 5xx is tried again on another API process
// after a pause; whether an earlier try may have been applied is reported (`ambiguous`) so the
// caller can look before it repeats a write. Counts what it met.
import type { SeededRandom } from '../../cloudsim/common/clock.js';
import type { Fleet, UserName } from '../../test/support/fleet/index.js';

export interface CallResult {
  status: number;
  body: any;
  /** An earlier try got no answer or a 5xx: it may have been applied. */
  ambiguous: boolean;
}

export interface ClientStats {
  calls: number;
  /** Tries that got no HTTP answer (connection refused or reset, timeout). */
  noAnswer: number;
  /** 5xx answers by status. */
  serverErrors: Record<string, number>;
  /** A 5xx's Magnum error code and title, once per distinct pair, for the report. */
  serverErrorKinds: Set<string>;
}

export class SoakClient {
  readonly stats: ClientStats = { calls: 0, noAnswer: 0, serverErrors: {}, serverErrorKinds: new Set() };

  constructor(
    private readonly fleet: Fleet,
    /** How long one call keeps trying before it gives up (ms). */
    private readonly patienceMs = 300_000,
  ) {}

  async call(rnd: SeededRandom, user: UserName, method: string, path: string, body?: unknown): Promise<CallResult> {
    const end = Date.now() + this.patienceMs;
    let api = Math.floor(rnd.random() * this.fleet.apis.length);
    let ambiguous = false;
    for (let attempt = 0; ; attempt++) {
      this.stats.calls++;
      let outcome: { status: number; body: any } | undefined;
      try {
        outcome = await this.fleet.call(api, user, method, path, body, 20_000);
      } catch {
        this.stats.noAnswer++;
      }
      if (outcome && outcome.status < 500) return { ...outcome, ambiguous };
      if (outcome) {
        this.stats.serverErrors[outcome.status] = (this.stats.serverErrors[outcome.status] ?? 0) + 1;
        const e = (outcome.body as { errors?: { code?: string; title?: string }[] } | undefined)?.errors?.[0];
        this.stats.serverErrorKinds.add(`${outcome.status} ${e?.code ?? '?'}: ${e?.title ?? ''}`.trim());
      }
      if (method !== 'GET') ambiguous = true;
      if (Date.now() > end) throw new Error(`${method} ${path}: no good answer within ${this.patienceMs} ms (last: ${outcome ? `${outcome.status} ${JSON.stringify(outcome.body)}` : 'no answer'})`);
      api = (api + 1) % this.fleet.apis.length;
      await new Promise((r) => setTimeout(r, Math.min(2000, 100 * 2 ** Math.min(attempt, 5))));
    }
  }
}
