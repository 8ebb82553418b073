// The cost of logging: a 404 flood against our built service with the daily file sink and with
// logging disabled, interleaved round by round, plus the peak RSS and a count of lost lines.
//   npm run bench:log   (builds the service first)
import './lib/reference-node.mjs';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SECRETS, load, machine, median, peakRssMiB, startChild } from './lib/measure.mjs';
import { report } from './lib/results.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 5);
const DURATION = Number(process.env.DURATION ?? 5);
const accept = { accept: 'application/json' };

const results = { file: [], none: [] };
let peakFile = 0;
let peakNone = 0;
let answered = 0;
let logged = 0;

for (let round = 0; round <= ROUNDS; round++) {
  for (const mode of ['file', 'none']) {
    const logDir = mkdtempSync(join(tmpdir(), 'bench-log-'));
    const server = await startChild('servers/ours-404.mjs', [mode], { ...SECRETS, LOG_DIR: logDir });
    const r = await load(server.url, { path: '/flood-path', duration: round === 0 ? 2 : DURATION, headers: accept });
    const peak = peakRssMiB(server.child.pid);
    await server.stop();
    if (round > 0) {
      results[mode].push(r.rps);
      if (mode === 'file') {
        peakFile = Math.max(peakFile, peak);
        answered += r.total;
        logged += readdirSync(logDir)
          .map((f) => readFileSync(join(logDir, f), 'utf8').split('\n').filter((l) => l.includes('request.ERROR')).length)
          .reduce((a, b) => a + b, 0);
      } else {
        peakNone = Math.max(peakNone, peak);
      }
    }
    rmSync(logDir, { recursive: true, force: true });
  }
}

const NOTES = `The same 404 flood against our built service with the daily file sink and with logging turned
off, interleaved; the line count compares what autocannon saw answered with the \`request.ERROR\`
lines in the files. The sink gathers lines for up to 20 ms into one \`write\`, so a flood costs a
few hundred writes a second, not one per line. Reproduce: \`cd bench && npm run bench:log\`.`;

const file = median(results.file);
const none = median(results.none);
const out = [];
out.push(`404 flood, ${ROUNDS} interleaved rounds of ${DURATION} s, 32 connections (${machine()})`);
out.push(`  file sink:        ${file.toFixed(0)} req/s median  (${results.file.map((x) => x.toFixed(0)).join(', ')})  peak RSS ${peakFile.toFixed(1)} MiB`);
out.push(`  logging disabled: ${none.toFixed(0)} req/s median  (${results.none.map((x) => x.toFixed(0)).join(', ')})  peak RSS ${peakNone.toFixed(1)} MiB`);
out.push(`  ratio file/none:  ${(file / none).toFixed(3)}`);
out.push(`  lines: ${logged} request.ERROR lines for ${answered} requests autocannon counted as answered: ${Math.max(0, answered - logged)} lost`);
report('## Cost of logging', ['```', ...out, '```'].join('\n'), NOTES);
