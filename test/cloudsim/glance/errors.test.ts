// Glance's error pages as webob 1.8 renders them (the pages below were read from Debian's webob and Zed's
// glance-api): text with tags stripped, HTML escaped, JSON with webob's breaks; a 404 through the simulated
// Glance in each form (the choice of page: test/cloudsim/common/webob.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SimError } from '../../../cloudsim/common/errors.js';
import { renderGlanceError } from '../../../cloudsim/glance/errors.js';
import { withSims } from '../support-sims.js';

const t = withSims();

test('the three pages: text with tags stripped, HTML escaped, JSON with webob breaks', () => {
  const e = new SimError(404, 'No <image> & found');
  assert.deepEqual(renderGlanceError(e, undefined), { contentType: 'text/plain; charset=UTF-8', body: '404 Not Found\n\nNo  & found\n\n   ' });
  assert.deepEqual(renderGlanceError(e, '*/*'), {
    contentType: 'text/html; charset=UTF-8',
    body: '<html>\n <head>\n  <title>404 Not Found</title>\n </head>\n <body>\n  <h1>404 Not Found</h1>\n  No &lt;image&gt; &amp; found<br /><br />\n\n\n\n </body>\n</html>',
  });
  assert.deepEqual(renderGlanceError(e, 'application/json'), {
    contentType: 'application/json',
    body: { message: 'No <image> & found<br /><br />\n\n\n', code: '404 Not Found', title: 'Not Found' },
  });
});

test('a 404 of the simulated Glance: text without Accept, HTML for */*, JSON when asked', async () => {
  const url = `${t.sims.urls.image}/v2/images/00000000-0000-0000-0000-000000000000`;
  const get = async (accept?: string) => {
    const res = await fetch(url, { headers: { 'x-auth-token': t.demo, ...(accept === undefined ? {} : { accept }) } });
    return { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
  };
  // fetch itself sends `accept: */*` when none is given: an empty header stands for "none".
  const none = await get('');
  assert.deepEqual(none, { status: 404, type: 'text/plain; charset=UTF-8', body: '404 Not Found\n\nNo image found with ID 00000000-0000-0000-0000-000000000000\n\n   ' });
  const html = await get('*/*');
  assert.deepEqual([html.status, html.type], [404, 'text/html; charset=UTF-8']);
  assert.match(html.body, /<h1>404 Not Found<\/h1>\n {2}No image found with ID 0{8}-/);
  const json = await get('application/json');
  assert.equal(json.status, 404);
  assert.match(json.type ?? '', /^application\/json/);
  assert.equal(JSON.parse(json.body).code, '404 Not Found');
  const unknown = await fetch(`${t.sims.urls.image}/v2/nothing`, { headers: { 'x-auth-token': t.demo, accept: '' } });
  assert.equal(await unknown.text(), '404 Not Found\n\nThe resource could not be found.\n\n   ');
});
