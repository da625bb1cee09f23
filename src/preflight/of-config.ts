// The pre-flight and the caller's clouds as the configuration makes them: the API builds them per process, and
// the worker for the upgrades its maintenance windows begin (through the API's own checks).
import type { Config } from '../config.js';
import { CallerClouds } from '../openstack/caller.js';
import { answeringPolicy } from '../openstack/retry.js';
import type { QuotaRepo } from '../db/repos/quotas.js';
import { warn } from '../process/warn.js';
import { cloudChecks, type CloudChecks } from './cloud-checks.js';
import { Preflight } from './preflight.js';
import type { Billed } from './quotas.js';


/** The API's clients act as the caller, at the configured interface and region. */
export function callerClouds(config: Pick<Config, 'openstack' | 'keystone'>): CallerClouds {
  return new CallerClouds({
    interface: config.openstack.interface,
    ...(config.openstack.region ? { region: config.openstack.region } : {}),
    timeoutMs: config.openstack.timeoutMs,
    retry: answeringPolicy(config.openstack.apiAttempts),
    keystone: { authUrl: config.keystone.authUrl, timeoutMs: config.keystone.timeoutMs },
  });
}

/** The pre-flight of the operations, asking the cloud as the caller (unless CLOUD_RESOURCE_CHECKS is off). */
export function preflightOf(
  config: Pick<Config, 'cloudResourceChecks' | 'keystone' | 'maxClustersPerProject'>,
  clouds: CallerClouds,
  quotas: QuotaRepo,
  checks: CloudChecks | undefined,
  steps: readonly Billed[],
): Preflight {
  return new Preflight({
    checkCloud: config.cloudResourceChecks,
    authUrl: config.keystone.authUrl,
    maxClustersPerProject: config.maxClustersPerProject,
    clouds,
    quotas,
    checks,
    steps,
  });
}

/** Glance/Nova/Neutron checks with the caller's token; failed calls are logged with their request ids. */
export function templateCloud(config: Pick<Config, 'keystone' | 'logLevel'>, clouds: CallerClouds): CloudChecks {
  return cloudChecks(clouds, {
    authUrl: config.keystone.authUrl,
    onFailure: (e) =>
      warn(config)({ service: e.service, status: e.status, kind: e.kind, request_id: e.requestId, detail: e.message }, 'openstack call failed'),
  });
}
