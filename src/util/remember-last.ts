/**
 * A one-entry cache for the hot path: clients send the same value request after request (the
 * URL, the Accept header), and a repeat of the last argument is one string comparison instead of
 * the work. At most one value is kept, whatever a client sends.
 */

/** Wraps `compute` so that a call with the same key as the last returns the last answer. */
export function rememberLast<V>(compute: (key: string) => V): (key: string) => V {
  let lastKey: string | undefined;
  let lastValue: V;
  return (key) => {
    if (key !== lastKey) {
      lastValue = compute(key);
      lastKey = key;
    }
    return lastValue;
  };
}
