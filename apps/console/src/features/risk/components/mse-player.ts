/**
 * The video player of the monitor and playback pages: reads the gateway's
 * framed fMP4 stream (`…/live`, `…/playback`) with fetch (the session's
 * `token` header goes along) and feeds it to a `<video>` through Media Source
 * Extensions.
 *
 * The framing (gateway `routes::risk::video`): each frame is a u32 big-endian
 * length of what follows, a u8 of flags (1 init segment, 2 keyframe, 4 error),
 * for an init segment a u8 codec length and the MSE codec string, then the
 * segment (or, for an error, its message in UTF-8, the stream's last frame).
 *
 * An init segment opens a source buffer with its codec; fragments are appended
 * in `sequence` mode, so a stream that restarts or a playback that jumps still
 * plays on. The buffer stays short: what is older than a few seconds behind
 * the play position is removed, a player falling behind the newest data jumps
 * to it, and fragments waiting to be appended are bounded (beyond the bound,
 * the player drops them and waits for the next keyframe).
 *
 * What the browser refuses (the video element's `error`: a blocked blob: URL,
 * an undecodable segment; a source buffer's `error` or a throwing append)
 * ends the stream as an `error` state with the browser's reason, so a tile
 * never stays "loading" over a picture that cannot come.
 */
import { Code, sessionHeaders } from '@/lib/api-client';

export const FLAG_INIT = 1;
export const FLAG_KEYFRAME = 2;
export const FLAG_ERROR = 4;

export interface MediaFrame {
  init: boolean;
  keyframe: boolean;
  /** The MSE codec string of an init segment. */
  codec: string;
  data: Uint8Array;
  /** Set for an error frame: why the stream ended. */
  error?: string;
}

/** Splits the stream's bytes into frames, however the network cut them. */
export class FrameParser {
  private buffer = new Uint8Array(0);

  push(chunk: Uint8Array): MediaFrame[] {
    const joined = new Uint8Array(this.buffer.length + chunk.length);
    joined.set(this.buffer);
    joined.set(chunk, this.buffer.length);
    const out: MediaFrame[] = [];
    let at = 0;
    while (joined.length - at >= 5) {
      const view = new DataView(joined.buffer, joined.byteOffset + at);
      const length = view.getUint32(0);
      if (joined.length - at - 4 < length) break;
      const body = joined.subarray(at + 4, at + 4 + length);
      at += 4 + length;
      const flags = body[0];
      if (flags & FLAG_ERROR) {
        out.push({ init: false, keyframe: false, codec: '', data: new Uint8Array(0), error: new TextDecoder().decode(body.subarray(1)) });
      } else if (flags & FLAG_INIT) {
        const n = body[1] ?? 0;
        const codec = new TextDecoder().decode(body.subarray(2, 2 + n));
        out.push({ init: true, keyframe: false, codec, data: body.slice(2 + n) });
      } else {
        out.push({ init: false, keyframe: (flags & FLAG_KEYFRAME) !== 0, codec: '', data: body.slice(1) });
      }
    }
    this.buffer = joined.slice(at);
    return out;
  }
}

export type PlayerState =
  | { kind: 'loading' }
  | { kind: 'playing' }
  | { kind: 'offline' }
  | { kind: 'noCamera' }
  | { kind: 'busy'; message: string }
  | { kind: 'unsupported' }
  | { kind: 'ended' }
  | { kind: 'error'; message: string };

/** The message of a vehicle without camera (gateway 4009). */
export const NO_CAMERA = '该车辆未配置摄像头';

/** A refused stream's answer as a tile state. */
export function refusalState(status: number, body: { code?: unknown; msg?: unknown }): PlayerState {
  const code = Number(body.code);
  const message = typeof body.msg === 'string' ? body.msg : '';
  if (code === Code.Unavailable) return { kind: 'offline' };
  if (code === Code.Conflict && message === NO_CAMERA) return { kind: 'noCamera' };
  if (code === Code.Conflict) return { kind: 'busy', message };
  return { kind: 'error', message: message || `HTTP ${status}` };
}

/** Seconds kept behind the play position. */
const KEEP_SECONDS = 6;
/** Further behind the newest data than this (at rate 1), the player jumps ahead. */
const MAX_LAG_SECONDS = 3;
/** Fragments waiting to be appended before the player skips to a keyframe. */
const MAX_QUEUE = 60;

export interface PlayerOptions {
  video: HTMLVideoElement;
  url: string;
  onState: (state: PlayerState) => void;
  fetchImpl?: typeof fetch;
}

export interface PlayerHandle {
  /** Ends the stream (the gateway then ends the viewing) and empties the video. */
  stop(): void;
  pause(): void;
  resume(): void;
  /** Plays faster (playback at 2× or 4×: the recording arrives faster too). */
  setRate(rate: number): void;
}

/** Starts playing `url` into `video`; the handle stops it. */
export function playMedia({ video, url, onState, fetchImpl = (...a) => fetch(...a) }: PlayerOptions): PlayerHandle {
  const controller = new AbortController();
  let stopped = false;
  let held = false;
  let media: MediaSource | undefined;
  let objectUrl: string | undefined;
  let buffer: SourceBuffer | undefined;
  let codec = '';
  let queue: Uint8Array[] = [];
  let waitKeyframe = false;
  let playing = false;

  const set = (state: PlayerState) => {
    if (!stopped) onState(state);
  };
  /** Ends the stream on what the browser refused, saying why. */
  const fail = (message: string) => {
    set({ kind: 'error', message });
    stopped = true;
    controller.abort();
  };
  const onVideoError = () => {
    const error = video.error;
    if (!error || !video.getAttribute('src')) return;
    fail(error.message || `MediaError ${error.code}`);
  };
  video.addEventListener('error', onVideoError);
  const onPlaying = () => {
    if (!playing && video.videoWidth > 0) {
      playing = true;
      set({ kind: 'playing' });
    }
  };
  video.addEventListener('playing', onPlaying);
  video.addEventListener('timeupdate', onPlaying);

  const chase = () => {
    if (!buffer || held) return;
    const ranges = buffer.buffered;
    if (!ranges.length) return;
    const start = ranges.start(ranges.length - 1);
    const end = ranges.end(ranges.length - 1);
    if (video.currentTime < start || end - video.currentTime > MAX_LAG_SECONDS * Math.max(1, video.playbackRate)) {
      video.currentTime = Math.max(start, end - 0.2);
    }
    if (video.paused) void video.play().catch(() => undefined);
  };

  const pump = () => {
    if (stopped || !buffer || !media || buffer.updating || media.readyState !== 'open') return;
    const ranges = buffer.buffered;
    if (ranges.length && video.currentTime - ranges.start(0) > KEEP_SECONDS * 2) {
      buffer.remove(ranges.start(0), video.currentTime - KEEP_SECONDS);
      return;
    }
    const next = queue.shift();
    if (!next) return;
    try {
      buffer.appendBuffer(next as BufferSource);
    } catch (err) {
      if (err instanceof DOMException && err.name === 'QuotaExceededError') {
        // Full: drop what waits and start again at the next keyframe.
        queue = [];
        waitKeyframe = true;
        return;
      }
      fail(err instanceof Error ? err.message : String(err));
    }
  };

  const open = (type: string) =>
    new Promise<void>((resolve) => {
      // A refused source never opens: the failure ends the wait.
      controller.signal.addEventListener('abort', () => resolve(), { once: true });
      const source = new MediaSource();
      media = source;
      objectUrl = URL.createObjectURL(source);
      source.addEventListener(
        'sourceopen',
        () => {
          buffer = source.addSourceBuffer(type);
          buffer.mode = 'sequence';
          buffer.addEventListener('error', () => fail(`SourceBuffer: ${codec}`));
          buffer.addEventListener('updateend', () => {
            chase();
            pump();
          });
          resolve();
        },
        { once: true },
      );
      video.src = objectUrl;
    });

  const handle = async (frame: MediaFrame) => {
    if (frame.error !== undefined) {
      set({ kind: 'error', message: frame.error });
      stopped = true;
      controller.abort();
      return;
    }
    if (frame.init) {
      const type = `video/mp4; codecs="${frame.codec}"`;
      if (typeof MediaSource === 'undefined' || !MediaSource.isTypeSupported(type)) {
        set({ kind: 'unsupported' });
        stopped = true;
        controller.abort();
        return;
      }
      if (!buffer || frame.codec !== codec) {
        codec = frame.codec;
        queue = [];
        await open(type);
      }
      queue.push(frame.data);
      waitKeyframe = true;
      pump();
      return;
    }
    if (waitKeyframe && !frame.keyframe) return;
    waitKeyframe = false;
    if (queue.length >= MAX_QUEUE) {
      queue = [];
      waitKeyframe = !frame.keyframe;
      if (waitKeyframe) return;
    }
    queue.push(frame.data);
    pump();
  };

  void (async () => {
    set({ kind: 'loading' });
    const response = await fetchImpl(url, { headers: sessionHeaders(), signal: controller.signal, cache: 'no-store' });
    if (!response.ok || !response.body) {
      const body = (await response.json().catch(() => ({}))) as { code?: unknown; msg?: unknown };
      set(refusalState(response.status, body));
      return;
    }
    const reader = response.body.getReader();
    controller.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined));
    const parser = new FrameParser();
    for (;;) {
      const { value, done } = await reader.read();
      if (done || stopped) break;
      for (const frame of parser.push(value)) {
        await handle(frame);
        if (stopped) return;
      }
    }
    set({ kind: 'ended' });
  })().catch((err: unknown) => {
    if (stopped || controller.signal.aborted) return;
    set({ kind: 'error', message: err instanceof Error ? err.message : String(err) });
  });

  return {
    stop() {
      stopped = true;
      controller.abort();
      video.removeEventListener('playing', onPlaying);
      video.removeEventListener('timeupdate', onPlaying);
      video.removeEventListener('error', onVideoError);
      video.pause();
      video.removeAttribute('src');
      video.load();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    },
    pause() {
      held = true;
      video.pause();
    },
    resume() {
      held = false;
      void video.play().catch(() => undefined);
    },
    setRate(rate: number) {
      video.playbackRate = rate;
    },
  };
}
