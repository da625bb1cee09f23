// What a token carries (like a fernet payload) and the opaque codec that stores it server-side.
import { newOpaqueToken } from './secrets.js';
import type { Scope } from './state.js';

/** The facts a token id stands for. Names, roles and catalog are rebuilt from state on every validation. */
export interface TokenPayload {
  userId: string;
  methods: string[];
  /** [own audit id] or [own, chain's original] for rescoped tokens. */
  auditIds: string[];
  /** Epoch milliseconds. */
  issuedAt: number;
  expiresAt: number;
  scope?: Scope;
  appCredId?: string;
}

export interface TokenCodec {
  readonly format: 'opaque' | 'jws';
  /** Time granularity of issued_at/expires_at (JWS claims are whole seconds). */
  readonly precisionMs: number;
  encode(payload: TokenPayload): Promise<string>;
  /** Returns the payload if the token is authentic (stored, or correctly signed); expiry is not checked. */
  decode(token: string): Promise<TokenPayload | undefined>;
  /** Audit ids without verification; for the `revokeToken` test helper. */
  peekAuditIds(token: string): string[] | undefined;
  publicKeyPem(): string | undefined;
}

/** Fernet-like random ids. The payloads are kept in memory; expired ones are swept after the grace window. */
export class OpaqueCodec implements TokenCodec {
  readonly format = 'opaque' as const;
  readonly precisionMs = 1;
  private readonly tokens = new Map<string, TokenPayload>();
  private issuedSinceSweep = 0;

  constructor(
    private readonly now: () => number,
    private readonly keepAfterExpiryMs: number,
  ) {}

  async encode(payload: TokenPayload): Promise<string> {
    if (++this.issuedSinceSweep >= 1000) this.sweep();
    const id = newOpaqueToken();
    this.tokens.set(id, payload);
    return id;
  }

  async decode(token: string): Promise<TokenPayload | undefined> {
    return this.tokens.get(token);
  }

  peekAuditIds(token: string): string[] | undefined {
    return this.tokens.get(token)?.auditIds;
  }

  publicKeyPem(): undefined {
    return undefined;
  }

  private sweep(): void {
    this.issuedSinceSweep = 0;
    const cutoff = this.now() - this.keepAfterExpiryMs;
    for (const [id, p] of this.tokens) if (p.expiresAt < cutoff) this.tokens.delete(id);
  }
}
