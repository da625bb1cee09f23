declare module 'virtual:labels' {
  const registry: { labels: { name: string; module: string; kind: 'core' | 'addon'; accepts: string; doc: string }[]; unsupported: Record<string, string>; defaultKubeVersion: string };
  export default registry;
}
declare module '*.css';
