// The page's view of its session: who, which projects, the roles held in the URL's project, when
// it ends. Unsent forms live in sessionStorage (never a secret) so a login after expiry returns
// to the same page with them.
import { useEffect, useState } from 'preact/hooks';
import { ctx, portal, type PortalSession } from './api';

export interface Scope {
  project_id: string;
  roles: string[];
  is_admin: boolean;
  can_write: boolean;
}

export async function loadSession(project?: string): Promise<PortalSession | undefined> {
  const s = await portal.session(project);
  if (s) ctx.csrf = s.csrf_token;
  return s;
}

/** How long an unsent form is kept: an abandoned draft older than this starts afresh. */
export const DRAFT_MAX_AGE_MS = 12 * 3600_000;

/**
 * A form's state kept in sessionStorage under `key` until `clear()` (after a successful submit),
 * stamped with when it was last changed: one older than DRAFT_MAX_AGE_MS is dropped, and
 * `resumed` says when a kept one was last changed (for the form to say so and offer to start over).
 */
export function useDraft<T extends object>(key: string, initial: T): [T, (patch: Partial<T>) => void, () => void, { resumed: number | undefined; restart: () => void }] {
  const storageKey = `draft:${key}`;
  const [loaded] = useState<{ value: T; at: number | undefined }>(() => {
    try {
      const saved = sessionStorage.getItem(storageKey);
      const parsed = saved ? (JSON.parse(saved) as { value?: Partial<T>; at?: number }) : undefined;
      if (!parsed?.value || typeof parsed.at !== 'number' || Date.now() - parsed.at > DRAFT_MAX_AGE_MS) {
        if (saved) sessionStorage.removeItem(storageKey);
        return { value: initial, at: undefined };
      }
      return { value: { ...initial, ...parsed.value }, at: parsed.at };
    } catch {
      return { value: initial, at: undefined };
    }
  });
  const [value, setValue] = useState<T>(loaded.value);
  const [resumed, setResumed] = useState(loaded.at);
  const update = (patch: Partial<T>) =>
    setValue((v) => {
      const next = { ...v, ...patch };
      writeDraft(key, next);
      return next;
    });
  const clear = () => sessionStorage.removeItem(storageKey);
  const restart = () => {
    clear();
    setResumed(undefined);
    setValue(initial);
  };
  return [value, update, clear, { resumed, restart }];
}

/** Writes a draft as useDraft keeps it (another page handing a form its value: the wizard's new template). */
export function writeDraft(key: string, value: object): void {
  try {
    sessionStorage.setItem(`draft:${key}`, JSON.stringify({ value, at: Date.now() }));
  } catch {
    // storage full or off: the form still works
  }
}

/** A kept draft's value, if any and not expired. */
export function readDraft<T>(key: string): Partial<T> | undefined {
  try {
    const parsed = JSON.parse(sessionStorage.getItem(`draft:${key}`) ?? 'null') as { value?: Partial<T>; at?: number } | null;
    return parsed?.value && typeof parsed.at === 'number' && Date.now() - parsed.at <= DRAFT_MAX_AGE_MS ? parsed.value : undefined;
  } catch {
    return undefined;
  }
}

/** Seconds until `iso`, ticking every second. */
export function useCountdown(iso: string | undefined): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, []);
  return iso ? Math.max(0, Math.floor((Date.parse(iso) - now) / 1000)) : 0;
}

export const RETURN_KEY = 'portal:return-to';
