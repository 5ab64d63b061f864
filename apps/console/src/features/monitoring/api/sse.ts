/**
 * Server-sent events read from a fetch body (EventSource cannot send the `token`
 * header). The parser follows the event-stream format: events end at a blank
 * line; `event:` names it, `data:` lines join with '\n'; lines starting with ':'
 * are comments (the server's `: ping`); CR, LF and CRLF all end a line.
 */

export interface SseEvent {
  event: string;
  data: string;
}

export class SseParser {
  private buffer = '';
  private event = '';
  private data: string[] = [];

  /** Feeds decoded text; returns the events it completed. `onComment` sees comment lines (heartbeats). */
  push(chunk: string, onComment?: (text: string) => void): SseEvent[] {
    this.buffer += chunk;
    const out: SseEvent[] = [];
    for (;;) {
      const match = /\r\n|\r|\n/.exec(this.buffer);
      if (!match) break;
      // A lone CR at the very end may be the first half of CRLF: wait for more.
      if (match[0] === '\r' && match.index === this.buffer.length - 1) break;
      const line = this.buffer.slice(0, match.index);
      this.buffer = this.buffer.slice(match.index + match[0].length);
      this.line(line, out, onComment);
    }
    return out;
  }

  private line(line: string, out: SseEvent[], onComment?: (text: string) => void) {
    if (line === '') {
      if (this.data.length) out.push({ event: this.event || 'message', data: this.data.join('\n') });
      this.event = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) {
      onComment?.(line.slice(1).trim());
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') this.event = value;
    else if (field === 'data') this.data.push(value);
    // id and retry are not used: a reconnect starts from a fresh snapshot.
  }
}

/** Wait before reconnect attempt `n` (from 0): 1 s doubling to 30 s, with ±20 % jitter so browsers do not reconnect in step. */
export function reconnectDelayMs(attempt: number, random = Math.random): number {
  const base = Math.min(30_000, 1000 * 2 ** Math.min(attempt, 5));
  return Math.round(base * (0.8 + 0.4 * random()));
}
