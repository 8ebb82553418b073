/** The end of every `switch` over a union: a new case that is not handled fails to compile. */
export function unreachable(value: never): never {
  throw new TypeError(`unhandled case: ${JSON.stringify(value)}`);
}
