#!/usr/bin/env node
// `poster` (`npx poster` in a checkout): the compiled CLI, built first when dist/ is missing or stale.
import { runCompiledCli } from './run-compiled-cli.mjs';

await runCompiledCli('poster');
