// webob's choice of page from the Accept header (every expected type read from Debian's webob 1.8), and the
// pages with an explanation and a detail (Neutron's unknown extension, as Zed's neutron-server answers it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiate, renderWebobError } from '../../../cloudsim/common/webob.js';

test('the Accept header picks the page as webob does', () => {
  const cases: [string | undefined, string][] = [
    [undefined, 'text/plain'],
    ['', 'text/plain'],
    ['application/json', 'application/json'],
    ['*/*', 'text/html'],
    ['text/plain', 'text/plain'],
    ['application/json, text/plain, */*', 'text/html'],
    ['text/html,application/json', 'text/html'],
    ['application/json, text/html', 'text/html'],
    ['application/json;q=0.5, text/html;q=0.4', 'application/json'],
    ['application/*', 'application/json'],
    ['text/*', 'text/html'],
    ['application/xml', 'text/plain'],
    ['text/html;q=0.9, application/json;q=0.9', 'text/html'],
    ['application/json, */*;q=0.8', 'application/json'],
    ['*/*;q=0.5, application/json', 'application/json'],
    ['text/html;q=0, */*', 'application/json'],
    ['application/json;q=0', 'text/plain'],
    ['APPLICATION/JSON', 'application/json'],
    ['application/json; charset=utf-8', 'text/plain'],
    ['image/png', 'text/plain'],
  ];
  for (const [accept, want] of cases) assert.equal(negotiate(accept) ?? 'text/plain', want, String(accept));
});

test('explanation and detail: the default explanation, the detail after it in each page', () => {
  const detail = 'Extension with alias nope does not exist';
  assert.deepEqual(renderWebobError(404, 'application/json', { detail }).body, { message: `The resource could not be found.<br /><br />\n${detail}\n\n`, code: '404 Not Found', title: 'Not Found' });
  assert.equal(renderWebobError(404, '', { detail }).body, `404 Not Found\n\nThe resource could not be found.\n\n ${detail}  `);
  assert.equal(
    renderWebobError(404, '*/*', { detail }).body,
    `<html>\n <head>\n  <title>404 Not Found</title>\n </head>\n <body>\n  <h1>404 Not Found</h1>\n  The resource could not be found.<br /><br />\n${detail}\n\n\n </body>\n</html>`,
  );
});
