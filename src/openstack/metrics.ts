// Prometheus metrics of the calls to OpenStack, registered in the registry the caller gives (the
// API's or the worker's): attempts per service, operation and status, their latency, and retries.
// Sessions get it as their `metrics` observer; nothing is global.
import { Counter, Histogram, type Registry } from 'prom-client';
import type { CallMetrics, CallRecord } from './http.js';

export class OpenStackMetrics implements CallMetrics {
  readonly calls: Counter<'service' | 'operation' | 'status'>;
  readonly duration: Histogram<'service' | 'operation' | 'outcome'>;
  readonly retries: Counter<'service' | 'operation'>;

  constructor(registry: Registry) {
    this.calls = new Counter({
      name: 'openstack_requests_total',
      help: 'OpenStack call attempts by service, operation and HTTP status (timeout or unreachable without an answer)',
      labelNames: ['service', 'operation', 'status'] as const,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'openstack_request_duration_seconds',
      help: 'OpenStack call attempt latency by service, operation and outcome (ok or the failure kind)',
      labelNames: ['service', 'operation', 'outcome'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    });
    this.retries = new Counter({
      name: 'openstack_request_retries_total',
      help: 'OpenStack call attempts that repeated a failed one, by service and operation',
      labelNames: ['service', 'operation'] as const,
      registers: [registry],
    });
  }

  observe(call: CallRecord): void {
    const { service, operation } = call;
    const status = call.status === 0 ? (call.kind ?? 'unreachable') : String(call.status);
    this.calls.inc({ service, operation, status });
    this.duration.observe({ service, operation, outcome: call.kind ?? 'ok' }, call.ms / 1000);
    if (call.attempt > 1) this.retries.inc({ service, operation });
  }
}
