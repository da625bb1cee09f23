// A small History-API router: the URL names the page and the project (/ui/p/<project>/...), so
// every view has a deep link and two tabs can work in two projects.
import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'login' }
  | { page: 'home' }
  | { page: 'clusters'; project: string }
  | { page: 'create'; project: string }
  | { page: 'cluster'; project: string; id: string }
  | { page: 'templates'; project: string }
  | { page: 'template'; project: string; id: string | null }
  | { page: 'quotas'; project: string }
  | { page: 'admin'; project: string }
  | { page: 'notfound' };

export function parse(path: string): Route {
  const parts = path.replace(/^\/ui\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { page: 'home' };
  if (parts[0] === 'login') return { page: 'login' };
  // /ui/clusters/<uuid> without a project: the session's default project (resolved by the app).
  if (parts[0] === 'clusters' && parts[1]) return { page: 'cluster', project: '', id: parts[1] };
  if (parts[0] !== 'p' || !parts[1]) return { page: 'notfound' };
  const project = parts[1];
  const [section, id, extra] = parts.slice(2);
  switch (section) {
    case undefined:
    case 'clusters':
      if (id === 'new') return { page: 'create', project };
      if (id) return { page: 'cluster', project, id };
      return { page: 'clusters', project };
    case 'templates':
      if (id === 'new') return { page: 'template', project, id: null };
      if (id && extra === 'edit') return { page: 'template', project, id };
      return { page: 'templates', project };
    case 'quotas':
      return { page: 'quotas', project };
    case 'admin':
      return { page: 'admin', project };
    default:
      return { page: 'notfound' };
  }
}

export const href = (project: string, ...rest: string[]) => ['/ui/p', encodeURIComponent(project), ...rest.map(encodeURIComponent)].join('/');

export function navigate(to: string, replace = false): void {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useLocation(): string {
  const [path, setPath] = useState(location.pathname + location.search);
  useEffect(() => {
    const on = () => setPath(location.pathname + location.search);
    addEventListener('popstate', on);
    return () => removeEventListener('popstate', on);
  }, []);
  return path;
}

/** Same-origin links go through the router (no reload); modified clicks open as the browser wants. */
export function onLinkClick(e: MouseEvent): void {
  const a = (e.target as HTMLElement).closest('a');
  if (!a || a.target || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || !url.pathname.startsWith('/ui/') || a.hasAttribute('download')) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
}
