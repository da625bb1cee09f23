// Whether an error is a transient failure of the service's own infrastructure (src/process/transient.ts):
// network codes, PostgreSQL's SQLSTATEs and class 08, the drivers' messages without a code, found through
// causes, TypeORM's driverError and AggregateErrors; anything else is not.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { transientInfraError } from '../../src/process/transient.js';

const err = (props: Record<string, unknown>) => Object.assign(new Error(String(props.message ?? '')), props);

const transient: [string, unknown, string][] = [
  ['a refused connection', err({ code: 'ECONNREFUSED' }), 'connection failure ECONNREFUSED'],
  ['a reset', err({ code: 'ECONNRESET' }), 'connection failure ECONNRESET'],
  ['the server shutting down', err({ code: '57P01' }), 'PostgreSQL 57P01'],
  ['a deadlock', err({ code: '40P01' }), 'PostgreSQL 40P01'],
  ['too many connections', err({ code: '53300' }), 'PostgreSQL 53300'],
  ['a connection exception (class 08)', err({ code: '08006' }), 'PostgreSQL 08006'],
  ['a statement timeout', err({ code: '57014' }), 'PostgreSQL 57014'],
  ['pg’s lost connection', err({ message: 'Connection terminated unexpectedly' }), 'Connection terminated unexpectedly'],
  ['pg-pool’s connect timeout', err({ message: 'timeout exceeded when trying to connect' }), 'timeout exceeded when trying to connect'],
  ['ioredis closed', err({ message: 'Connection is closed.' }), 'Connection is closed.'],
  ['ioredis retries', err({ name: 'MaxRetriesPerRequestError', message: 'x' }), 'MaxRetriesPerRequestError'],
  ['Redis loading', err({ message: 'LOADING Redis is loading the dataset in memory' }), 'LOADING Redis is loading the dataset in memory'],
  ['a failover', err({ message: 'READONLY You can’t write against a read only replica.' }), 'READONLY You can’t write against a read only replica.'],
  ['TypeORM’s driverError', err({ message: 'Query failed', driverError: err({ code: '57P03' }) }), 'PostgreSQL 57P03'],
  ['a cause', new Error('outer', { cause: err({ code: 'ETIMEDOUT' }) }), 'connection failure ETIMEDOUT'],
  ['an AggregateError', new AggregateError([new Error('a'), err({ code: 'EHOSTUNREACH' })], ''), 'connection failure EHOSTUNREACH'],
  ['a released query runner', err({ name: 'QueryRunnerProviderAlreadyReleasedError' }), 'the connection of the transaction was lost'],
];
for (const [name, e, why] of transient) test(`transient: ${name}`, () => assert.equal(transientInfraError(e), why));

const permanent: [string, unknown][] = [
  ['a unique violation', err({ code: '23505' })],
  ['a syntax error', err({ code: '42601' })],
  ['a programming error', new TypeError('x is undefined')],
  ['an HTTP 404 code number', err({ code: 404 })],
  ['not an object', 'ECONNREFUSED'],
  ['null', null],
  ['a message merely mentioning a connection', err({ message: 'the Connection is closed for lunch' })],
];
for (const [name, e] of permanent) test(`not transient: ${name}`, () => assert.equal(transientInfraError(e), undefined));

test('causes are followed only so deep', () => {
  let e: Error = err({ code: 'ECONNREFUSED' });
  for (let i = 0; i < 6; i++) e = new Error('wrapped', { cause: e });
  assert.equal(transientInfraError(e), undefined);
  let shallow: Error = err({ code: 'ECONNREFUSED' });
  for (let i = 0; i < 3; i++) shallow = new Error('wrapped', { cause: shallow });
  assert.equal(transientInfraError(shallow), 'connection failure ECONNREFUSED');
});
