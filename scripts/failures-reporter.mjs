// A second node:test reporter for `npm test`: says nothing until the run ends, then lists every failing test
// (file, name, the first lines of its error) as TAP comments, so the tail of a long log (all a CI page
// may keep) names what failed. Suites failing only because a test inside failed are left out.
import { relative } from 'node:path';

export default async function* failuresReporter(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, details } = event.data;
    const error = details?.error;
    if (error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    const message = String(cause?.message ?? cause ?? 'failed').split('\n').slice(0, 6);
    failed.push({ where: file ? relative(process.cwd(), file) : '?', name, message });
  }
  if (failed.length === 0) return;
  yield `# failing tests (${failed.length}):\n`;
  for (const f of failed) {
    yield `# ✗ ${f.where} ${f.name}\n`;
    for (const l of f.message) yield `#     ${l}\n`;
  }
}
