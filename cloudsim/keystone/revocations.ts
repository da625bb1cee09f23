// Revocation events: by audit id (kills the token and everything rescoped from it) and per user.

export class Revocations {
  private readonly auditIds = new Set<string>();
  /** user id → issue sequence number up to which that user's tokens are revoked */
  private readonly userUpTo = new Map<string, number>();
  /** own audit id → issue sequence number; whole-second JWS timestamps cannot order events */
  private readonly issueSeq = new Map<string, number>();
  private seq = 0;

  recordIssued(auditId: string): void {
    this.issueSeq.set(auditId, ++this.seq);
  }

  revokeAuditId(auditId: string): void {
    this.auditIds.add(auditId);
  }

  /** Revokes every token of the user issued so far (password change, disable, delete). */
  revokeUser(userId: string): void {
    this.userUpTo.set(userId, this.seq);
  }

  isRevoked(userId: string, auditIds: readonly string[]): boolean {
    if (auditIds.some((id) => this.auditIds.has(id))) return true;
    const upTo = this.userUpTo.get(userId);
    if (upTo === undefined) return false;
    const own = auditIds[0];
    return (own === undefined ? 0 : (this.issueSeq.get(own) ?? 0)) <= upTo;
  }
}
