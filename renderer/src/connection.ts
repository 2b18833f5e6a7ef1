// The state of the link to `prh serve` as the UI shows it (the desktop app's IPC never drops): connected, lost and
// retrying with backoff, or signed out (the server answers, but no longer accepts this tab's cookie).
import { reactive } from 'vue';

type LinkState = 'connected' | 'connecting' | 'offline' | 'signed-out';
export const connection = reactive({
  state: 'connecting' as LinkState,
  attempt: 0, // failed attempts since the link was lost
  retryAt: null as number | null, // ms since epoch of the next attempt
  lostAt: null as number | null, // when the link was lost; what the UI shows is as of then
  reconnects: 0, // how many times the link came back (the banner says so for a moment)
});

const reconnected = new Set<() => void>();
// Run after the link comes back: events sent while it was down are lost, so state is fetched again.
export function onReconnect(listener: () => void): () => void {
  reconnected.add(listener);
  return () => reconnected.delete(listener);
}
export const notifyReconnected = () => reconnected.forEach((l) => l());

// Backoff between attempts: 0.5 s doubling to 10 s, with ±20% jitter so many tabs do not retry in step.
export const backoffMs = (attempt: number, random = Math.random()) =>
  Math.min(10_000, 500 * 2 ** attempt) * (0.8 + 0.4 * random);
