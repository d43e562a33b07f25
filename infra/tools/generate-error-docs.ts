// Writes docs/errors.md from the error catalogue: `npm run docs:errors`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { errorDocs } from './error-docs.ts';

const target = fileURLToPath(new URL('../../docs/errors.md', import.meta.url));
writeFileSync(target, errorDocs());
console.log(`wrote ${target}`);
