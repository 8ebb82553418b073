/**
 * Growth of a parser's running time with its input: the time for 2n over the time for n, as a
 * median of several runs, each run long enough to be measured on a loaded machine.
 *
 * Two doublings are measured, n/2 -> n and n -> 2n, and the smaller ratio counts: a parser that
 * is n² shows about 4 in both, while V8 moving a string or an array into its large-object space
 * (a one-off slowdown at a fixed size) shows in one doubling only.
 */

/** Runs of one measurement at least this long, so timer and scheduler noise stay small. */
const MIN_SAMPLE_MS = 0.5;
const RUNS = 3;
/** One call slower than this is a failure on its own; no point measuring it further. */
export const MAX_CALL_MS = 250;

export interface Growth {
  /** Median milliseconds per call at n/2, n and 2n. */
  readonly times: readonly [number, number, number];
  /** The smaller of the two doubling ratios. */
  readonly ratio: number;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Milliseconds per call of `run(input)`, `loops` calls per sample, median of RUNS samples. */
function perCall<T>(run: (input: T) => unknown, input: T, loops: number): number {
  const samples: number[] = [];
  for (let r = 0; r < RUNS; r++) {
    const start = performance.now();
    for (let i = 0; i < loops; i++) run(input);
    samples.push((performance.now() - start) / loops);
  }
  return median(samples);
}

/** Measures `run` on `make(n / 2)`, `make(n)` and `make(2n)`, the same number of calls each. */
export function measureGrowth<T>(run: (input: T) => unknown, make: (n: number) => T, n: number): Growth {
  const inputs = [make(n >> 1), make(n), make(2 * n)] as const;
  // Warm up every size so none pays for compilation.
  for (let i = 0; i < 3; i++) for (const input of inputs) run(input);
  const start = performance.now();
  run(inputs[0]);
  const firstMs = performance.now() - start;
  if (firstMs > MAX_CALL_MS) return { times: [firstMs, Infinity, Infinity], ratio: Infinity };
  const loops = Math.max(1, Math.ceil(MIN_SAMPLE_MS / Math.max(firstMs, 0.001)));
  const times = inputs.map((input) => perCall(run, input, loops)) as unknown as [number, number, number];
  return { times, ratio: Math.min(times[1] / times[0], times[2] / times[1]) };
}
