// A separate process that reads one file with readRegularFile: argv = path, maxBytes. Prints
// `read: <n> bytes` or `refused: <message>`, so a read that blocks can be killed from outside.
import { FileRefused, readRegularFile } from '../../src/util/regular-file.js';

const [path = '', maxBytes = '0'] = process.argv.slice(2);
try {
  process.stdout.write(`read: ${readRegularFile(path, Number(maxBytes)).bytes.byteLength} bytes\n`);
} catch (err) {
  if (!(err instanceof FileRefused)) throw err;
  process.stdout.write(`refused: ${err.message}\n`);
}
