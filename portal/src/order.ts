// Orders for the lists: one collator (the order of String#localeCompare, without its per-call
// locale lookup when a thousand rows sort), made at its first use rather than while the page
// starts, and a version's key that puts v1.9 before v1.10.
let collator: Intl.Collator | undefined;

export const byText = (a: string, b: string): number => (collator ??= new Intl.Collator()).compare(a, b);

/** `v1.35.2` → `v0001.0035.0002`: compared as text, a newer release is greater. */
export const versionKey = (v: string): string => v.replace(/\d+/g, (d) => d.padStart(4, '0'));
