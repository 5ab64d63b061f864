import { afterEach, vi } from 'vitest';
import { api } from './api-client';
import { newIdempotencyKey } from './idempotency';

afterEach(() => vi.unstubAllGlobals());

describe('idempotency keys', () => {
  it('are new each time', () => {
    const keys = new Set(Array.from({ length: 50 }, newIdempotencyKey));
    expect(keys.size).toBe(50);
  });

  it('travel as the Idempotency-Key header', async () => {
    const fetchMock = vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 200, msg: 'ok', data: null }))));
    vi.stubGlobal('fetch', fetchMock);
    await api.post('/api/v1/help/feedback', { body: { content: 'x', contact: '', attachments: [] } as never, idempotencyKey: 'k-1' });
    const [, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect((init.headers as Record<string, string>)['Idempotency-Key']).toBe('k-1');
  });
});
