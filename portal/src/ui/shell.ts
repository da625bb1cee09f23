// The `openstack coe …` lines the portal offers to copy, quoted for a POSIX shell: every value in
// single quotes (a name such as `np$(id)` or `a;b` is a word, never code), and what the user has not
// chosen yet as a placeholder that fails harmlessly when pasted (`'NAME?'` is a plain argument, where
// `<name>` would be a redirection from a file called name).

/** One shell word: `'…'`, with each `'` written as `'\''`. */
export const shq = (v: string | number): string => `'${String(v).replace(/'/g, `'\\''`)}'`;

/** A value not given yet, as a harmless placeholder word (`'CLUSTER-NAME?'`). */
export const placeholder = (what: string): string => shq(`${what.toUpperCase().replace(/\s+/g, '-')}?`);

/** A value quoted, or its placeholder when empty. */
export const shqOr = (v: string | number | null | undefined, what: string): string => (v === undefined || v === null || v === '' ? placeholder(what) : shq(v));
