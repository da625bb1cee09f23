// What the deployment files' tests share: the Dockerfile as stages (parsed by dockerfile-ast, the
// parser of the Dockerfile language server), and the environment variables each process mode reads,
// recorded by running the mode's own configuration readers on a proxy of a valid environment.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DockerfileParser, type Instruction } from 'dockerfile-ast';
import { cloudOptionsFromEnv, demoClockOptions, simListenFromEnv } from '../../../cloudsim/embedded.js';
import { loadConfig, loadMigrateConfig } from '../../../src/config.js';
import type { Mode } from '../../../src/process/modes.js';
import { TEST_SECRET_KEY } from '../../support/app.js';

export const ROOT = join(import.meta.dirname, '..', '..', '..');

export interface Step {
  keyword: string;
  args: string[];
  flags: Record<string, string>;
  /** The JSON form's strings (ENTRYPOINT, CMD), else undefined. */
  json: string[] | undefined;
  line: number;
}

export interface Stage {
  name: string;
  from: string;
  steps: Step[];
}

function step(i: Instruction): Step {
  const flags: Record<string, string> = {};
  for (const f of (i as { getFlags?: () => { getName(): string; getValue(): string | null }[] }).getFlags?.() ?? []) flags[f.getName()] = f.getValue() ?? '';
  const content = i.getArgumentsContent();
  let json: string[] | undefined;
  if (content?.trim().startsWith('[')) json = JSON.parse(content) as string[];
  return { keyword: i.getKeyword(), args: i.getArguments().map((a) => a.getValue()), flags, json, line: i.getRange().start.line + 1 };
}

export function dockerfileText(): string {
  return readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
}

/** The Dockerfile's build stages in order, each with its instructions (ARGs before the first FROM are left out). */
export function dockerfileStages(text = dockerfileText()): Stage[] {
  const stages: Stage[] = [];
  for (const i of DockerfileParser.parse(text).getInstructions()) {
    const s = step(i);
    if (s.keyword === 'FROM') stages.push({ name: s.args[2] ?? String(stages.length), from: s.args[0] ?? '', steps: [] });
    else stages.at(-1)?.steps.push(s);
  }
  return stages;
}

export function stage(stages: Stage[], name: string): Stage {
  const s = stages.find((x) => x.name === name);
  if (!s) throw new Error(`the Dockerfile has no stage ${name}`);
  return s;
}

/** The image's ENV (the runtime stage's). */
export function imageEnv(stages = dockerfileStages()): Record<string, string> {
  const out: Record<string, string> = {};
  for (const s of stage(stages, 'runtime').steps.filter((x) => x.keyword === 'ENV')) {
    for (const a of s.args) {
      const eq = a.indexOf('=');
      out[a.slice(0, eq)] = a.slice(eq + 1);
    }
  }
  return out;
}

/** A valid environment for every reader below (the simulator's values left to their defaults). */
const BASE_ENV: Record<string, string> = {
  DATABASE_URL: 'postgres://magnum@db.example:5432/magnum',
  REDIS_URL: 'redis://redis.example:6379',
  KEYSTONE_URL: 'https://keystone.example:5000/v3',
  SERVICE_PASSWORD: 'x',
  SECRET_KEYS: TEST_SECRET_KEY,
};

function namesRead(read: (env: NodeJS.ProcessEnv) => unknown): Set<string> {
  const seen = new Set<string>();
  const env = new Proxy({ ...BASE_ENV } as NodeJS.ProcessEnv, {
    get(target, key) {
      if (typeof key === 'string') seen.add(key);
      return target[key as string];
    },
  });
  read(env);
  return seen;
}

/** Every environment variable a mode reads: a deployment file setting another one has a typo or a stale name. */
export function envReadBy(mode: Exclude<Mode, 'all'>): Set<string> {
  switch (mode) {
    case 'api':
    case 'worker':
      return namesRead((env) => loadConfig(env));
    case 'migrate':
      return namesRead((env) => loadMigrateConfig(env));
    case 'sim':
      return new Set([
        ...namesRead((env) => simListenFromEnv(env)),
        ...namesRead((env) => cloudOptionsFromEnv(env)),
        ...namesRead((env) => demoClockOptions(env)),
      ]);
  }
}
