// The process modes of src/main.ts (dist/src/main.js in the image): one image, the role chosen by
// the command. Data only, so the deployment files' tests can check the commands they give.

export const MODES = {
  api: 'the API (any number of replicas behind a load balancer); the schema must be migrated',
  worker: 'an operations worker (any number of replicas); the schema must be migrated',
  migrate: 'apply pending migrations and exit (once per release, before api and worker start)',
  sim: 'the OpenStack simulator alone (Keystone and the services), to try the service against',
  all: 'migrate, then the API, a worker and the embedded simulator in one process (npm start)',
} as const;

export type Mode = keyof typeof MODES;

export const isMode = (s: string | undefined): s is Mode => s !== undefined && Object.hasOwn(MODES, s);

export function usage(): string {
  const width = Math.max(...Object.keys(MODES).map((m) => m.length));
  return [
    'usage: node dist/src/main.js <mode>   (npx tsx src/main.ts <mode> from the sources)',
    '',
    ...Object.entries(MODES).map(([m, what]) => `  ${m.padEnd(width)}  ${what}`),
    '',
    'Configuration comes from the environment (README, "Configuration"). Bad configuration stops the',
    'start with one line on stderr and exit code 2; a dependency that cannot be reached, exit code 1.',
  ].join('\n');
}
