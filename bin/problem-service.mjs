#!/usr/bin/env node
// `problem-service` (`npx problem-service` where the package is installed) and `npm start`: runs
// the compiled service in this process, so signals reach it directly. npm runs no pre-scripts
// here (.npmrc sets ignore-scripts), hence the build step lives in this file: in a checkout,
// dist/ is built first when it is missing or older than src/; an installed package builds nothing.
import { buildIfNeeded } from '../scripts/build-if-needed.mjs';

buildIfNeeded();
const { main } = await import('../dist/server.js');
await main();
