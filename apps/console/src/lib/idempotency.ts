/**
 * Idempotency keys for creates (docs/ARCHITECTURE.md §3): a form keeps one key until its
 * create succeeds, so a retried or double submit creates one record.
 */
export function newIdempotencyKey(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  // Insecure contexts (plain http on a LAN host) have no randomUUID.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
}
