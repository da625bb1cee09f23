// Writes openapi/magnum-v1.json from the routes' schemas and openapi/types.ts from it
// (openapi-typescript). `npm run openapi`; test/api/openapi.test.ts fails when they drift.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderOpenapi } from '../src/api/openapi-render.js';

const { json, types } = await renderOpenapi();
writeFileSync(fileURLToPath(new URL('../openapi/magnum-v1.json', import.meta.url)), json);
writeFileSync(fileURLToPath(new URL('../openapi/types.ts', import.meta.url)), types);
console.log('wrote openapi/magnum-v1.json and openapi/types.ts');
