// Writes the chart's files derived from the route table: `npm run chart:generate`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gatewayRulesFile } from './gateway-rules-file.ts';

const target = fileURLToPath(new URL('../chart/files/gateway-rules.json', import.meta.url));
writeFileSync(target, gatewayRulesFile());
console.log(`wrote ${target}`);
