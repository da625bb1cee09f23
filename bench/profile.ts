// Summary of a V8 .cpuprofile (as written by bench/server.ts or node --cpu-prof): where the CPU
// time goes, by area (our src/, workers/ and cloudsim/ files, each npm package, Node core, GC) and by function.
//   tsx bench/profile.ts bench/profiles/app-show.cpuprofile [top]
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const SPECIAL = new Set(['(root)', '(program)', '(idle)', '(garbage collector)']);
/** The checkout's root as a file URL, and our code's folders in it. */
const ROOT = new URL('../', import.meta.url).href;
const OURS = ['src/', 'workers/', 'cloudsim/'];
const ours = (area: string) => OURS.some((o) => area.startsWith(o));
/** Areas at the bottom of nearly every stack (event loop, microtask queue): not shown in totals. */
const DISPATCH = new Set(['(root)', 'node:process', '(V8 builtins / native)']);

/** The area a frame belongs to: src/<file>, an npm package, node:<module>, GC, ... */
export function areaOf(f: CallFrame): string {
  if (SPECIAL.has(f.functionName) && f.url === '') return f.functionName;
  const url = f.url;
  if (url === '') return '(V8 builtins / native)';
  if (url.startsWith('node:')) {
    const parts = url.slice(5).split('/');
    const mod = parts[0] === 'internal' ? parts[1] ?? 'internal' : parts[0]!;
    return `node:${mod.replace(/\.js$/, '')}`;
  }
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  // A file of this checkout: its path from the root (the compiled copy's, from dist/); of another
  // copy of the repository (a profile taken elsewhere): from its first top-level folder.
  if (url.startsWith(ROOT)) return url.slice(ROOT.length).replace(/^dist\//, '');
  const top = /\/(src|workers|cloudsim|bench|test|scripts)\//.exec(url);
  return top ? url.slice(top.index + 1) : url;
}

const frameName = (f: CallFrame): string => {
  const area = areaOf(f);
  const fn = f.functionName || '(anonymous)';
  if (SPECIAL.has(fn) || area === '(V8 builtins / native)') return fn;
  return `${fn}  ${area}:${f.lineNumber + 1}`;
};

export interface ProfileSummary {
  wallMs: number;
  busyMs: number;
  idleMs: number;
  selfByArea: [string, number][];
  totalByArea: [string, number][];
  selfByFunction: [string, number][];
  totalBySrcFunction: [string, number][];
}

export function summarize(p: CpuProfile): ProfileSummary {
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const selfArea = new Map<string, number>();
  const totalArea = new Map<string, number>();
  const selfFn = new Map<string, number>();
  const totalSrcFn = new Map<string, number>();
  let idle = 0;
  let all = 0;

  // timeDeltas[i + 1] is the time spent in the stack sampled at i.
  for (let i = 0; i < p.samples.length; i++) {
    const dt = (p.timeDeltas[i + 1] ?? 0) / 1000;
    all += dt;
    const leaf = byId.get(p.samples[i]!)!;
    if (leaf.callFrame.functionName === '(idle)') {
      idle += dt;
      continue;
    }
    add(selfArea, areaOf(leaf.callFrame), dt);
    add(selfFn, frameName(leaf.callFrame), dt);
    const areas = new Set<string>();
    const fns = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const f = byId.get(id)!.callFrame;
      const area = areaOf(f);
      if (DISPATCH.has(area)) continue;
      areas.add(area);
      if (ours(area)) fns.add(frameName(f));
    }
    for (const a of areas) add(totalArea, a, dt);
    for (const f of fns) add(totalSrcFn, f, dt);
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return {
    wallMs: all,
    busyMs: all - idle,
    idleMs: idle,
    selfByArea: sorted(selfArea),
    totalByArea: sorted(totalArea),
    selfByFunction: sorted(selfFn),
    totalBySrcFunction: sorted(totalSrcFn),
  };
}

export function formatSummary(title: string, s: ProfileSummary, top = 15): string {
  const pct = (v: number) => `${((100 * v) / s.busyMs).toFixed(1).padStart(5)} %`;
  const section = (name: string, rows: [string, number][]) =>
    [`  ${name}`, ...rows.slice(0, top).map(([k, v]) => `    ${pct(v)}  ${k}`)].join('\n');
  return [
    `── CPU profile: ${title} ── ${s.wallMs.toFixed(0)} ms sampled, ${s.busyMs.toFixed(0)} ms busy (${((100 * s.busyMs) / s.wallMs).toFixed(0)} % of one core); shares below are of busy time`,
    section('self time by area (where the CPU actually is)', s.selfByArea),
    section('total time by area (on the stack: includes callees)', s.totalByArea),
    section('self time by function', s.selfByFunction),
    section('total time of our functions (src/, workers/, cloudsim/; includes callees)', s.totalBySrcFunction),
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: tsx bench/profile.ts <file.cpuprofile> [top]');
    process.exit(2);
  }
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log(formatSummary(file, summarize(p), Number(process.argv[3] ?? 20)));
}
