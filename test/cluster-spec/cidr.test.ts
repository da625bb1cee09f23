// IPv4 CIDR helpers: parsing (a canonical network address, or the reason), overlap, the n-th address, size.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatIpv4, nthAddress, overlaps, parseCidr, parseIpv4, size } from '../../src/cluster-spec/cidr.js';

test('parseIpv4: four decimal octets, no leading zeros', () => {
  assert.equal(parseIpv4('10.0.0.1'), 0x0a000001);
  assert.equal(parseIpv4('255.255.255.255'), 0xffffffff);
  for (const bad of ['10.0.0', '10.0.0.256', '10.0.0.01', '10.0.0.-1', '10.0.0.1.2', 'a.b.c.d', '1e1.0.0.0', '']) assert.equal(parseIpv4(bad), undefined, bad);
  assert.equal(formatIpv4(0xc0000201), '192.0.2.1');
  assert.equal(formatIpv4(0xffffffff), '255.255.255.255');
});

test('parseCidr: the network address and prefix; host bits set is refused with the network meant; malformed ones with an example', () => {
  assert.deepEqual(parseCidr(' 10.100.0.0/16 '), { text: '10.100.0.0/16', base: 0x0a640000, prefix: 16 });
  assert.deepEqual(parseCidr('0.0.0.0/0'), { text: '0.0.0.0/0', base: 0, prefix: 0 });
  assert.equal(parseCidr('192.168.1.7/32').text, '192.168.1.7/32');
  assert.equal(parseCidr('200.0.0.0/8').base, 0xc8000000, 'addresses above 128.0.0.0 stay positive');
  assert.throws(() => parseCidr('10.100.0.1/16'), /^Error: Host bits are set; did you mean 10\.100\.0\.0\/16\?$/);
  assert.throws(() => parseCidr('192.168.1.1/0'), /did you mean 0\.0\.0\.0\/0\?/);
  for (const bad of ['10.0.0.0', '10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/', 'fd00::/8', '10.0.0.300/24']) {
    assert.throws(() => parseCidr(bad), /^Error: Expected an IPv4 CIDR like 10\.100\.0\.0\/16\.$/, bad);
  }
});

test('overlaps: either network holds the other', () => {
  const c = parseCidr;
  assert.equal(overlaps(c('10.0.0.0/8'), c('10.254.0.0/16')), true);
  assert.equal(overlaps(c('10.254.0.0/16'), c('10.0.0.0/8')), true);
  assert.equal(overlaps(c('10.100.0.0/16'), c('10.101.0.0/16')), false);
  assert.equal(overlaps(c('192.168.0.0/24'), c('192.168.0.128/25')), true);
  assert.equal(overlaps(c('0.0.0.0/0'), c('203.0.113.0/24')), true);
  assert.equal(overlaps(c('200.0.0.0/8'), c('201.0.0.0/8')), false);
});

test('nthAddress and size', () => {
  assert.equal(nthAddress(parseCidr('10.254.0.0/16'), 10), '10.254.0.10');
  assert.equal(nthAddress(parseCidr('10.0.0.0/24'), 256), '10.0.1.0', 'counts past the octet');
  assert.equal(nthAddress(parseCidr('255.255.255.0/24'), 255), '255.255.255.255');
  assert.deepEqual([size(parseCidr('10.0.0.0/24')), size(parseCidr('10.0.0.0/32')), size(parseCidr('0.0.0.0/0'))], [256, 1, 2 ** 32]);
});
