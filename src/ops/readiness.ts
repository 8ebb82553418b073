/**
 * Readiness (`GET /readyz`): named checks, each passing or saying why not, and the answer a
 * balancer reads from them. Pure: the checks themselves are run by their owners.
 */

/** One check's outcome: `undefined` when it passes, else why not (one short line). */
export type CheckOutcome = string | undefined;

/** A named check, run on every probe; a check that throws fails with its message. */
export interface ReadinessCheck {
  readonly name: string;
  run(): Promise<CheckOutcome> | CheckOutcome;
}

export interface ReadinessReport {
  readonly ready: boolean;
  /** Every check by name: `ok`, or why it fails. */
  readonly checks: Readonly<Record<string, string>>;
}

/** The report of outcomes, by check name (undefined = passes). */
export function reportOf(outcomes: readonly (readonly [string, CheckOutcome])[]): ReadinessReport {
  const checks: Record<string, string> = {};
  let ready = true;
  for (const [name, outcome] of outcomes) {
    checks[name] = outcome ?? 'ok';
    if (outcome !== undefined) ready = false;
  }
  return { ready, checks };
}

/** How long one check may take before it counts as failed: a probe must answer promptly. */
export const CHECK_TIMEOUT_MS = 2_000;

/** Runs every check at once, each bounded by `timeoutMs`. */
export async function runChecks(checks: readonly ReadinessCheck[], timeoutMs = CHECK_TIMEOUT_MS): Promise<ReadinessReport> {
  const outcomes = await Promise.all(checks.map(async (check): Promise<[string, CheckOutcome]> => [check.name, await runBounded(check, timeoutMs)]));
  return reportOf(outcomes);
}

async function runBounded(check: ReadinessCheck, timeoutMs: number): Promise<CheckOutcome> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<CheckOutcome>((resolve) => {
    timer = setTimeout(() => resolve(`no answer within ${timeoutMs} ms`), timeoutMs);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => check.run()), late]);
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    clearTimeout(timer);
  }
}
