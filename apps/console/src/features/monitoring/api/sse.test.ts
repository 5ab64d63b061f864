import { reconnectDelayMs, SseParser } from './sse';

describe('event-stream parsing', () => {
  it('reads named events, joins data lines and skips ping comments', () => {
    const parser = new SseParser();
    const comments: string[] = [];
    const events = parser.push('event: position\ndata: {"a":1}\n\n: ping\n\ndata: one\ndata: two\n\n', (c) => comments.push(c));
    expect(events).toEqual([
      { event: 'position', data: '{"a":1}' },
      { event: 'message', data: 'one\ntwo' },
    ]);
    expect(comments).toEqual(['ping']);
  });

  it('completes an event split across chunks anywhere, CRLF included', () => {
    const parser = new SseParser();
    const text = 'event: position\r\ndata: {"plateNumber":"粤B12345"}\r\n\r\n';
    const out = [];
    for (const ch of text) out.push(...parser.push(ch));
    expect(out).toEqual([{ event: 'position', data: '{"plateNumber":"粤B12345"}' }]);
  });

  it('keeps an unfinished event until its blank line comes', () => {
    const parser = new SseParser();
    expect(parser.push('event: position\ndata: {}')).toEqual([]);
    expect(parser.push('\n')).toEqual([]);
    expect(parser.push('\n')).toEqual([{ event: 'position', data: '{}' }]);
  });

  it('takes a field without a space after the colon, and ignores events with no data', () => {
    const parser = new SseParser();
    expect(parser.push('event:position\ndata:x\n\nevent: position\n\n')).toEqual([{ event: 'position', data: 'x' }]);
  });
});

describe('reconnect backoff', () => {
  it('doubles from one second up to thirty, within ±20 %', () => {
    const mid = () => 0.5;
    expect([0, 1, 2, 3, 4, 5, 6, 10].map((n) => reconnectDelayMs(n, mid))).toEqual([1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000]);
    expect(reconnectDelayMs(0, () => 0)).toBe(800);
    expect(reconnectDelayMs(0, () => 1)).toBe(1200);
  });
});
