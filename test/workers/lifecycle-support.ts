// The scenarios' harness lives in test/scenarios/lifecycle-support.ts. This name stays for the importers
// outside the scenarios (bench/cluster.ts, scripts/portal-screenshots.ts, test/e2e, test/portal,
// test/security, test/support/portal.ts) until they name that file themselves.
export * from '../scenarios/lifecycle-support.js';
