// A separate process that reads one settings document: argv = varDir, id. Prints the document's
// JSON or `<error name>: <message>`, so a read that blocks can be killed from outside.
import { createSettingsStore } from '../../src/store/index.js';

const [varDir = '', id = ''] = process.argv.slice(2);
try {
  process.stdout.write(`${JSON.stringify(createSettingsStore({ varDir, appEnv: 'test' }).get(id))}\n`);
} catch (err) {
  process.stdout.write(`${(err as Error).name}: ${(err as Error).message}\n`);
}
