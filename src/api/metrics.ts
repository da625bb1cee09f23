// Prometheus metrics of one app instance (its own registry, so several apps can live in a test).
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { ValidatorMetrics } from '../keystone/token-validator.js';

export class Metrics implements ValidatorMetrics {
  readonly registry = new Registry();
  readonly httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'API request duration by route and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry],
  });
  readonly tokenCache = new Counter({
    name: 'keystone_token_cache_total',
    help: 'Token cache lookups by result (hit or miss)',
    labelNames: ['result'] as const,
    registers: [this.registry],
  });
  readonly keystoneDuration = new Histogram({
    name: 'keystone_request_duration_seconds',
    help: 'Keystone call latency by operation and outcome',
    labelNames: ['operation', 'outcome'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  constructor(opts: { processMetrics: boolean }) {
    if (opts.processMetrics) collectDefaultMetrics({ register: this.registry });
  }

  cache(result: 'hit' | 'miss'): void {
    this.tokenCache.inc({ result });
  }

  keystoneCall(operation: string, outcome: string, seconds: number): void {
    this.keystoneDuration.observe({ operation, outcome }, seconds);
  }
}
