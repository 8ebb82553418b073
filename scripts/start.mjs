#!/usr/bin/env node
// `npm start`: builds dist/ when it is missing or older than src/, then runs the compiled
// service in this same process (so signals reach it directly). npm runs no pre-scripts here,
// since .npmrc sets ignore-scripts, hence the build step lives in this file.
import { buildIfNeeded } from './build-if-needed.mjs';

buildIfNeeded();
const { main } = await import('../dist/server.js');
await main();
