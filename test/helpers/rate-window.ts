/**
 * The poster rate limit counts fixed windows of a minute, so a test that expects a 429 from its
 * second or third request fails when those requests straddle a window's end. A service started
 * with this clock is a second into a fresh window: a test has 59 s to make its requests.
 * Tokens for it must be issued at the same clock (the service verifies `iat` with it).
 */
export function clockAtWindowStart(windowMs = 60_000): () => number {
  const offsetMs = windowMs - (Date.now() % windowMs) + 1_000;
  return () => Date.now() + offsetMs;
}
