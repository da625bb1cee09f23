// The shell: session, header (project switcher, session expiry, theme, logout), navigation, and
// the page the URL names. A lost session shows the login, then returns to the same page.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { ctx, onSessionLost, portal, type PortalSession } from './api';
import { href, navigate, onLinkClick, parse, useLocation, type Route } from './router';
import { loadSession, RETURN_KEY, useCountdown, type Scope } from './session';
import { applyTheme, currentTheme, type Theme } from './theme';
import { LoginPage } from './pages/login';
import { ClustersPage } from './pages/clusters';
import { ClusterPage } from './pages/cluster';
import { CreatePage } from './pages/create';
import { TemplatesPage } from './pages/templates';
import { TemplateFormPage } from './pages/template-form';
import { QuotasPage } from './pages/quotas';
import { AdminPage } from './pages/admin';

type State = { kind: 'loading' } | { kind: 'out'; expired: boolean } | { kind: 'in'; session: PortalSession };

export function App() {
  const path = useLocation();
  const route = parse(path.split('?')[0]!);
  const [state, setState] = useState<State>({ kind: 'loading' });
  const [scope, setScope] = useState<Scope | undefined>();
  const [theme, setTheme] = useState<Theme>(currentTheme());
  const project = 'project' in route ? route.project : '';
  const loaded = useRef<string | undefined>(undefined);

  useEffect(() => applyTheme(theme), [theme]);
  // Requests start in layout effects, right after the render: a plain effect waits for the next
  // frame (Preact runs them after paint), time the page spends doing nothing.
  useLayoutEffect(() => {
    onSessionLost.handler = () => {
      if (!location.pathname.startsWith('/ui/login')) sessionStorage.setItem(RETURN_KEY, location.pathname + location.search);
      ctx.csrf = '';
      setState({ kind: 'out', expired: true });
    };
    // One call gives the session and, for the URL's project, the roles held there.
    loadSession(project || undefined).then((s) => {
      if (s?.scope) {
        ctx.project = s.scope.project_id;
        setScope(s.scope);
        loaded.current = s.scope.project_id;
      }
      setState(s ? { kind: 'in', session: s } : { kind: 'out', expired: false });
    });
  }, []);
  useEffect(() => {
    if (state.kind !== 'in') return;
    const s = state.session;
    // A URL without a project (or /ui/) lands in the session's default project.
    if (route.page === 'home' || route.page === 'login') return navigate(href(s.default_project, 'clusters'), true);
    if ('project' in route && route.project === '' && route.page === 'cluster') return navigate(href(s.default_project, 'clusters', route.id), true);
    if (!project) return;
    ctx.project = project;
    if (loaded.current === project) return;
    loaded.current = project;
    setScope(undefined);
    loadSession(project).then((x) => (x?.scope ? setScope(x.scope) : setScope({ project_id: project, roles: [], is_admin: false, can_write: false })));
  }, [state.kind, project, route.page]);

  usePageTitleAndFocus(path);
  if (state.kind === 'loading') return <p class="loading" role="status">Loading…</p>;
  if (state.kind === 'out') {
    return (
      <LoginPage
        expired={state.expired}
        onLogin={(s) => {
          ctx.csrf = s.csrf_token;
          loaded.current = undefined;
          setState({ kind: 'in', session: s });
          const back = sessionStorage.getItem(RETURN_KEY);
          sessionStorage.removeItem(RETURN_KEY);
          navigate(back && back.startsWith('/ui/p/') ? back : href(s.default_project, 'clusters'), true);
        }}
      />
    );
  }
  const s = state.session;
  return (
    <div class="shell" onClick={onLinkClick as never}>
      <a class="skip" href="#main">Skip to content</a>
      <Header session={s} project={project} route={route} scope={scope} theme={theme} setTheme={setTheme} onLogout={() => setState({ kind: 'out', expired: false })} />
      <main id="main" tabIndex={-1}>
        {!('project' in route) || !s.projects.some((p) => p.id === route.project) ? (
          <NotFound session={s} foreign={'project' in route && route.project !== ''} />
        ) : !scope ? (
          <p role="status">Loading…</p>
        ) : (
          <Page route={route} scope={scope} session={s} />
        )}
      </main>
    </div>
  );
}

function Page({ route, scope, session }: { route: Route; scope: Scope; session: PortalSession }) {
  switch (route.page) {
    case 'clusters':
      return <ClustersPage project={route.project} scope={scope} />;
    case 'create':
      return <CreatePage project={route.project} scope={scope} />;
    case 'cluster':
      return <ClusterPage project={route.project} id={route.id} scope={scope} user={session.user.name} />;
    case 'templates':
      return <TemplatesPage project={route.project} scope={scope} />;
    case 'template':
      return <TemplateFormPage project={route.project} id={route.id} scope={scope} />;
    case 'quotas':
      return <QuotasPage project={route.project} scope={scope} />;
    case 'admin':
      return scope.is_admin ? <AdminPage project={route.project} /> : <NotFound session={session} project={route.project} />;
    default:
      return <NotFound session={session} />;
  }
}

/** The strongest role held (admin ⇒ member ⇒ reader are implied roles). */
const roleOf = (s: Scope) => (s.is_admin ? 'admin' : s.roles.includes('member') ? 'member' : s.roles.includes('reader') ? 'reader' : 'no role');

/** An unknown address, or a project that is not one of the session's: never "Loading…" for ever, always a way back. */
function NotFound({ session, project, foreign = false }: { session: PortalSession; project?: string; foreign?: boolean }) {
  const home = project ?? session.default_project;
  const name = session.projects.find((p) => p.id === home)?.name ?? home;
  return (
    <section aria-labelledby="notfound-title">
      <h1 id="notfound-title">Not found</h1>
      <p>{foreign ? 'This address names a project that is not one of yours (or does not exist).' : 'This page does not exist.'}</p>
      <p>
        <a href={href(home, 'clusters')}>Back to the clusters of {name}</a>
      </p>
    </section>
  );
}

const APP_TITLE = 'Magnum clusters';

/**
 * Every page has its own title (its heading, followed as it loads and changes), and after a
 * navigation the focus moves to the new page's heading, as a screen reader user expects.
 */
function usePageTitleAndFocus(path: string): void {
  const first = useRef(true);
  const pending = useRef(false);
  const sync = () => {
    const h1 = document.querySelector('h1') as HTMLElement | null;
    const text = h1?.textContent?.trim();
    const title = text ? `${text} · ${APP_TITLE}` : APP_TITLE;
    if (document.title !== title) document.title = title;
    if (pending.current && h1) {
      pending.current = false;
      if (!h1.hasAttribute('tabindex')) h1.setAttribute('tabindex', '-1');
      h1.focus();
    }
  };
  useEffect(() => {
    if (first.current) first.current = false;
    else pending.current = true;
    sync();
  }, [path]);
  useEffect(() => {
    const o = new MutationObserver(sync);
    o.observe(document.body, { childList: true, subtree: true, characterData: true });
    return () => o.disconnect();
  }, []);
}

function Header(props: { session: PortalSession; project: string; route: Route; scope: Scope | undefined; theme: Theme; setTheme: (t: Theme) => void; onLogout: () => void }) {
  const { session, project, route } = props;
  const left = useCountdown(session.expires_at);
  // The expiry as a local date (a tooltip), formatted after the first paint: the first date
  // formatting loads the locale's data, which the page's first requests need not wait for.
  const [expiry, setExpiry] = useState<string | undefined>();
  useEffect(() => setExpiry(new Date(session.expires_at).toLocaleString()), [session.expires_at]);
  const nav = [
    ['clusters', 'Clusters'],
    ['templates', 'Templates'],
    ['quotas', 'Quotas'],
    ...(props.scope?.is_admin ? [['admin', 'Admin']] : []),
  ];
  const active = route.page === 'cluster' || route.page === 'create' ? 'clusters' : route.page === 'template' ? 'templates' : route.page;
  const mine = session.projects.some((p) => p.id === project);
  const section = route.page === 'template' ? 'templates' : route.page === 'cluster' || route.page === 'create' ? 'clusters' : route.page;
  return (
    <header class="top">
      <a class="brand" href={href(mine ? project : session.default_project, 'clusters')}>
        <span aria-hidden="true">⬡</span> Magnum clusters
      </a>
      <nav aria-label="Sections">
        <ul>
          {nav.map(([k, label]) => (
            <li key={k}>
              <a href={href(mine ? project : session.default_project, k!)} aria-current={active === k ? 'page' : undefined}>
                {label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="top-tools">
        <label class="inline" for="project-switch">
          Project
        </label>
        <select
          id="project-switch"
          value={mine || project ? project : session.default_project}
          onChange={(e) => navigate(href((e.target as HTMLSelectElement).value, ['clusters', 'templates', 'quotas', 'admin'].includes(section) ? section : 'clusters'))}
        >
          {!mine && project && (
            <option value={project} disabled>
              Not one of your projects
            </option>
          )}
          {session.projects.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name}
            </option>
          ))}
        </select>
        <span class="who">
          {session.user.name}
          {props.scope && mine && <span class="roles"> ({roleOf(props.scope)})</span>}
        </span>
        <span class={`expiry${left < 600 ? ' expiry-soon' : ''}`} role="timer" aria-live="off" title={`Keystone token expires ${expiry ?? session.expires_at}`}>
          Session: {left >= 3600 ? `${Math.floor(left / 3600)} h ${Math.floor((left % 3600) / 60)} min` : `${Math.floor(left / 60)} min ${left % 60} s`} left
        </span>
        <button type="button" class="secondary" onClick={() => props.setTheme(props.theme === 'dark' ? 'light' : 'dark')} aria-pressed={props.theme === 'dark'}>
          Dark theme
        </button>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            await portal.logout();
            ctx.csrf = '';
            props.onLogout();
            navigate('/ui/login', true);
          }}
        >
          Log out
        </button>
      </div>
    </header>
  );
}
