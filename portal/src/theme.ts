// Light and dark themes: the system's by default, the user's choice kept in localStorage.
export type Theme = 'light' | 'dark';

export function currentTheme(): Theme {
  const saved = localStorage.getItem('portal:theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

export function applyTheme(t: Theme, save = false): void {
  document.documentElement.dataset.theme = t;
  if (save) localStorage.setItem('portal:theme', t);
}
