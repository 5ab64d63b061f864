/**
 * Update check of console spec §4: fetch the site root with a timestamp, compare the main
 * script's hash with the running one, and decide when to look again.
 */
const MINUTE = 60_000;
export const POLL = {
  midweek: 30 * MINUTE,
  otherDays: 3 * 60 * MINUTE,
  deferredOrMissing: 10 * MINUTE,
  failed: 60 * MINUTE,
} as const;

export type CheckOutcome = 'same' | 'deferred' | 'missing' | 'failed';

/** 30 min Tuesday to Thursday, 3 h other days, 10 min if deferred or hash missing, 1 h on failure. */
export function nextCheckDelay(outcome: CheckOutcome, now = new Date()): number {
  if (outcome === 'failed') return POLL.failed;
  if (outcome === 'deferred' || outcome === 'missing') return POLL.deferredOrMissing;
  const day = now.getDay();
  return day >= 2 && day <= 4 ? POLL.midweek : POLL.otherDays;
}

/** The hash in the entry script's file name (`/assets/index-<hash>.js`). */
export function mainScriptHash(html: string): string | undefined {
  const match = /<script[^>]+type="module"[^>]+src="[^"]*\/index-([\w-]+)\.js"/.exec(html) ?? /src="[^"]*\/index-([\w-]+)\.js"/.exec(html);
  return match?.[1];
}

export function runningScriptHash(doc: Document = document): string | undefined {
  const script = doc.querySelector<HTMLScriptElement>('script[type="module"][src*="/index-"]');
  return script ? mainScriptHash(script.outerHTML) : undefined;
}

export async function fetchServerHash(): Promise<string | undefined> {
  const response = await fetch(`/?t=${Date.now()}`, { cache: 'no-store' });
  if (!response.ok) throw new Error(`update check: HTTP ${response.status}`);
  return mainScriptHash(await response.text());
}
