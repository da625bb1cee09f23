// npm run labels: writes docs/labels.md (the label table) from the module registry and the catalog.
import { mkdirSync, writeFileSync } from 'node:fs';
import { labelTable } from '../src/cluster-spec/labels/table.js';

mkdirSync('docs', { recursive: true });
writeFileSync('docs/labels.md', labelTable());
console.log('wrote docs/labels.md');
