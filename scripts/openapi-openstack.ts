// Writes openapi/openstack/<service>.ts from openapi/openstack/<service>.yaml (openapi-typescript).
// Run by `npm run openapi`; test/openstack/openapi.test.ts fails when they drift.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenstackTypes, typesUrl } from '../src/openstack/openapi-render.js';

const rendered = await renderOpenstackTypes();
for (const [name, types] of Object.entries(rendered)) writeFileSync(fileURLToPath(typesUrl(name)), types);
console.log(`wrote openapi/openstack/{${Object.keys(rendered).join(',')}}.ts`);
