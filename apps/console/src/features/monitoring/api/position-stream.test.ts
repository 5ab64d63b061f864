import { openPositionStream, type StreamState } from './position-stream';

const encoder = new TextEncoder();

/** A streamed answer that sends `chunks` and then ends (or stays open). */
function streamed(chunks: string[], end = true): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const c of chunks) controller.enqueue(encoder.encode(c));
      if (end) controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

const position = (plate: string) => `event: position\ndata: ${JSON.stringify({ vehicleId: plate, plateNumber: plate })}\n\n`;

async function until(check: () => boolean, ms = 3000) {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('position stream', () => {

  it('asks for an event stream, delivers positions, and reconnects (refetching the snapshot) when the stream ends', async () => {
    const calls: RequestInit[] = [];
    const answers = [streamed([position('A'), ': ping\n\n', position('B')]), streamed([position('C')], false)];
    const fetchImpl = vi.fn((_url: RequestInfo | URL, init?: RequestInit) => {
      calls.push(init ?? {});
      return Promise.resolve(answers.shift() ?? streamed([], false));
    });
    const plates: string[] = [];
    const states: StreamState[] = [];
    let opened = 0;
    const stop = openPositionStream({ fetchImpl: fetchImpl as typeof fetch, onPosition: (p) => plates.push(p.plateNumber), onState: (s) => states.push(s), onOpen: () => opened++, random: () => 0 });
    await until(() => plates.length === 3);
    stop();
    expect(plates).toEqual(['A', 'B', 'C']);
    expect(opened).toBe(2);
    expect(states).toEqual(['connecting', 'open', 'reconnecting', 'reconnecting', 'open', 'closed']);
    expect((calls[0].headers as Record<string, string>).Accept).toBe('text/event-stream');
  });

  it('reconnects when the stream goes silent past the watchdog', async () => {
    const fetchImpl = vi.fn((_url: RequestInfo | URL, init?: RequestInit) =>
      new Promise<Response>((resolve) => {
        resolve(streamed([position('A')], false));
        init?.signal?.addEventListener('abort', () => undefined);
      }),
    );
    const plates: string[] = [];
    const stop = openPositionStream({ fetchImpl: fetchImpl as typeof fetch, onPosition: (p) => plates.push(p.plateNumber), silenceMs: 30, random: () => 0 });
    await until(() => fetchImpl.mock.calls.length >= 2, 5000);
    stop();
    expect(plates.length).toBeGreaterThanOrEqual(1);
  });

  it('stops for good when the session has ended', async () => {
    const fetchImpl = vi.fn(() => Promise.resolve(new Response(JSON.stringify({ code: 1001, msg: '登录已失效', data: null }), { status: 401 })));
    let ended = 0;
    const states: StreamState[] = [];
    openPositionStream({ fetchImpl: fetchImpl as unknown as typeof fetch, onPosition: () => undefined, onSessionEnded: () => ended++, onState: (s) => states.push(s) });
    await until(() => ended === 1);
    await new Promise((r) => setTimeout(r, 50));
    expect(fetchImpl).toHaveBeenCalledTimes(1);
    expect(states.at(-1)).toBe('closed');
  });
});
