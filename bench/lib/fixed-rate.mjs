// Latency at a fixed rate, open loop: request i is due at start + i / rate whatever became of the
// ones before, and its latency runs from when it was due to the end of its answer, so a server
// that stalls is charged for every request the stall delayed (no coordinated omission).
// autocannon's overallRate measured from when a request was written and paused connections in
// bursts; on this mix it reported p99 near one second for every server alike.
import http from 'node:http';

/** Sends `requests` (cycled) to `url` at `rate` a second for `seconds` over `connections` keep-alive sockets. */
export async function fixedRateLatency(url, requests, { rate, seconds, connections }) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.round(rate * seconds);
  const latencies = new Float64Array(total);
  let done = 0;
  let failed = 0;
  const start = performance.now();
  await new Promise((resolve) => {
    let next = 0;
    const finish = () => {
      if (++done === total) resolve();
    };
    const sendDue = () => {
      const now = performance.now();
      while (next < total && start + (next * 1000) / rate <= now) {
        const index = next++;
        const due = start + (index * 1000) / rate;
        const { path, headers } = requests[index % requests.length];
        const req = http.get(new URL(path, url), { agent, headers }, (res) => {
          res.resume();
          res.on('end', () => {
            latencies[index] = performance.now() - due;
            finish();
          });
        });
        req.on('error', () => {
          failed++;
          latencies[index] = Number.NaN;
          finish();
        });
      }
      if (next < total) setTimeout(sendDue, 1);
    };
    sendDue();
  });
  agent.destroy();
  const sorted = Array.from(latencies).filter((l) => !Number.isNaN(l)).sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1], failed, sent: total };
}
