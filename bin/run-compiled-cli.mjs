// Runs one of the compiled command-line tools of dist/cli/. In a checkout (src/ present) dist/
// is built first when it is missing or older than src/, as `npm start` does, so the tools work
// right after `npm ci`; an installed package ships dist/ and builds nothing.
import { buildIfNeeded } from '../scripts/build-if-needed.mjs';

/** @param {'jwt' | 'poster'} name */
export async function runCompiledCli(name) {
  buildIfNeeded();
  const cli = await import(`../dist/cli/${name}.js`);
  const { runCli } = await import('../dist/util/main-module.js');
  runCli(name, name === 'jwt' ? cli.runJwtCli : cli.runPosterCli);
}
