// The project's flavors, keypairs, images and external networks (GET /v1/cloud-choices), fetched once per project.
import { useLayoutEffect, useState } from 'preact/hooks';
import { api, must, type Schemas } from './api';
import { mib } from './ui/components';

export type Choices = Schemas['CloudChoices'];
const cache = new Map<string, Promise<Choices>>();

/** The project's choices; `when` false: not yet (the page needs something else first). */
export function useChoices(project: string, when = true): Choices | undefined {
  const [c, setC] = useState<Choices | undefined>();
  // A layout effect: the request goes right after the render, not after the next frame.
  useLayoutEffect(() => {
    if (!when) return;
    let p = cache.get(project);
    if (!p) {
      p = must(api.GET('/v1/cloud-choices', {}));
      cache.set(project, p);
      p.catch(() => cache.delete(project));
    }
    p.then(setC, () => setC({ flavors: [], keypairs: [], images: [], external_networks: [], unreachable: ['compute', 'image', 'network'] }));
  }, [project, when]);
  return c;
}

export const flavorText = (f: Choices['flavors'][number]) => `${f.name} — ${f.vcpus} vCPU, ${mib(f.ram)} RAM, ${f.disk} GB disk`;

export function flavorLabel(choices: Choices | undefined, id: string | null | undefined): string {
  if (!id) return '—';
  const f = choices?.flavors.find((x) => x.id === id || x.name === id);
  return f ? flavorText(f) : id;
}
