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

/** A form's state kept in sessionStorage under `key` until `clear()` (after a successful submit). */
export function useDraft<T extends object>(key: string, initial: T): [T, (patch: Partial<T>) => void, () => void] {
  const storageKey = `draft:${key}`;
  const [value, setValue] = useState<T>(() => {
    try {
      const saved = sessionStorage.getItem(storageKey);
      return saved ? { ...initial, ...(JSON.parse(saved) as Partial<T>) } : initial;
    } catch {
      return initial;
    }
  });
  const update = (patch: Partial<T>) =>
    setValue((v) => {
      const next = { ...v, ...patch };
      try {
        sessionStorage.setItem(storageKey, JSON.stringify(next));
      } catch {
        // storage full or off: the form still works
      }
      return next;
    });
  const clear = () => sessionStorage.removeItem(storageKey);
  return [value, update, clear];
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
