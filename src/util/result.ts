/**
 * The one shape of "this may fail" across the service: a value, or the problem that stands in
 * its way (a Problem to answer with, a list of spec errors, a reason).
 */
export type Result<T, P> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: P };

export function succeeded<T>(value: T): { readonly ok: true; readonly value: T } {
  return { ok: true, value };
}

export function failed<P>(problem: P): { readonly ok: false; readonly problem: P } {
  return { ok: false, problem };
}
