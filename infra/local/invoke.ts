/**
 * `npm run invoke -- <handler> <event.json>`: runs one function on a sample event against the
 * local table (while `npm start` runs) or a deployed one (TABLE_NAME set). Example:
 *   npm run invoke -- phone-connections/list events/phone-connections-list.json
 */
import { readFileSync } from 'node:fs';
import { loadCliEnv } from './cli-env.js';

const [name, file] = process.argv.slice(2);
if (!name || !file) {
  console.error('usage: npm run invoke -- <handler, e.g. phone-connections/list> <event file>');
  process.exit(2);
}
loadCliEnv();
const { loadHandler, lambdaContext } = await import('./gateway.js');
const handler = await loadHandler(name.replace(/^functions\//, '').replace(/\.ts$/, ''));
const event = JSON.parse(readFileSync(file, 'utf8')) as unknown;
try {
  const result = await handler(event, lambdaContext(name));
  console.log(JSON.stringify(result, null, 2));
} catch (error) {
  console.error(`${name} threw: ${(error as Error).message}`);
  process.exit(1);
}
