/**
 * The live position stream (`GET /api/v1/monitor/stream`), read with fetch and
 * a stream reader so the session's `token` header goes along. It reconnects by
 * itself with backoff when the stream ends, fails, or stays silent past three
 * missed pings; `onOpen` tells the page to refetch its snapshot, so nothing
 * missed while disconnected stays wrong.
 */
import { Code, sessionHeaders } from '@/lib/api-client';
import type { LatestPosition } from './positions';
import { reconnectDelayMs, SseParser } from './sse';

export type StreamState = 'connecting' | 'open' | 'reconnecting' | 'closed';

export interface PositionStreamOptions {
  onPosition: (p: LatestPosition) => void;
  onState?: (state: StreamState) => void;
  /** Connected (again): refetch the snapshot. */
  onOpen?: () => void;
  /** The session is gone (1001/1016): the stream stops; the next API call logs out. */
  onSessionEnded?: () => void;
  url?: string;
  /** No byte for this long (the server pings every 15 s): reconnect. */
  silenceMs?: number;
  fetchImpl?: typeof fetch;
  random?: () => number;
}

export const STREAM_URL = '/api/v1/monitor/stream';
const SILENCE_MS = 45_000;

/** Starts the stream; the returned function stops it for good. */
export function openPositionStream(options: PositionStreamOptions): () => void {
  const { onPosition, onState, onOpen, onSessionEnded, url = STREAM_URL, silenceMs = SILENCE_MS, fetchImpl = (...a) => fetch(...a), random } = options;
  let stopped = false;
  let controller: AbortController | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;

  const connect = async () => {
    if (stopped) return;
    onState?.(attempt === 0 ? 'connecting' : 'reconnecting');
    controller = new AbortController();
    const ctrl = controller;
    let silence: ReturnType<typeof setTimeout> | undefined;
    const heard = () => {
      clearTimeout(silence);
      silence = setTimeout(() => ctrl.abort(), silenceMs);
    };
    try {
      heard();
      const response = await fetchImpl(url, { headers: { ...sessionHeaders(), Accept: 'text/event-stream' }, signal: ctrl.signal, cache: 'no-store' });
      if (!response.ok || !response.body) {
        const code = await response.json().then((e: { code?: unknown }) => Number(e.code), () => NaN);
        if (code === Code.SessionInvalid || code === Code.SessionEnded) {
          stopped = true;
          onState?.('closed');
          onSessionEnded?.();
          return;
        }
        throw new Error(`stream answered ${response.status}`);
      }
      attempt = 0;
      onState?.('open');
      onOpen?.();
      const reader = response.body.getReader();
      // An abort (watchdog, stop) ends a pending read even where the body ignores the signal.
      ctrl.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined));
      const decoder = new TextDecoder();
      const parser = new SseParser();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        heard();
        for (const event of parser.push(decoder.decode(value, { stream: true }))) {
          if (event.event !== 'position') continue;
          try {
            onPosition(JSON.parse(event.data) as LatestPosition);
          } catch {
            // One bad event is dropped; the stream goes on.
          }
        }
      }
    } catch {
      // Network failure, abort by the silence watchdog or by stop(): reconnect unless stopped.
    } finally {
      clearTimeout(silence);
    }
    if (stopped) return;
    onState?.('reconnecting');
    retryTimer = setTimeout(() => void connect(), reconnectDelayMs(attempt++, random));
  };

  void connect();
  return () => {
    stopped = true;
    clearTimeout(retryTimer);
    controller?.abort();
    onState?.('closed');
  };
}
