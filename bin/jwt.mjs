#!/usr/bin/env node
// `jwt` (`npx jwt` in a checkout): the compiled CLI, built first when dist/ is missing or stale.
import { runCompiledCli } from './run-compiled-cli.mjs';

await runCompiledCli('jwt');
