import { FLAG_INIT, FLAG_KEYFRAME, FrameParser, playMedia, type PlayerState } from './mse-player';

/** A stream that never sends: the player waits on it until stopped. */
const silent = () =>
  Promise.resolve(new Response(new ReadableStream<Uint8Array>({ start: () => undefined }), { status: 200 }));

describe('playMedia', () => {
  it('turns a refusal of the video element into an error state with the browser reason', async () => {
    const video = document.createElement('video');
    const states: PlayerState[] = [];
    const player = playMedia({ video, url: '/live', onState: (s) => states.push(s), fetchImpl: silent });
    // What Chrome reports when the page's CSP blocks the MediaSource's blob: URL.
    video.setAttribute('src', 'blob:http://localhost/x');
    Object.defineProperty(video, 'error', {
      value: { code: 4, message: 'MEDIA_ELEMENT_ERROR: Media load rejected by URL safety check' },
    });
    video.dispatchEvent(new Event('error'));
    await Promise.resolve();
    expect(states.at(-1)).toEqual({ kind: 'error', message: 'MEDIA_ELEMENT_ERROR: Media load rejected by URL safety check' });
    player.stop();
  });

  it('ignores the error of the emptied element after stop', () => {
    const video = document.createElement('video');
    const states: PlayerState[] = [];
    const player = playMedia({ video, url: '/live', onState: (s) => states.push(s), fetchImpl: silent });
    player.stop();
    Object.defineProperty(video, 'error', { value: { code: 4, message: 'emptied' } });
    video.dispatchEvent(new Event('error'));
    expect(states.some((s) => s.kind === 'error')).toBe(false);
  });
});

describe('FrameParser', () => {
  it('splits frames however the network cuts them', () => {
    const frame = (flags: number, rest: number[]) => [0, 0, 0, rest.length + 1, flags, ...rest];
    const bytes = new Uint8Array([
      ...frame(FLAG_INIT, [3, ...new TextEncoder().encode('avc'), 9, 9]),
      ...frame(FLAG_KEYFRAME, [7, 7, 7]),
    ]);
    const parser = new FrameParser();
    const frames = [...parser.push(bytes.subarray(0, 7)), ...parser.push(bytes.subarray(7))];
    expect(frames.map((f) => [f.init, f.keyframe, f.codec, [...f.data]])).toEqual([
      [true, false, 'avc', [9, 9]],
      [false, true, '', [7, 7, 7]],
    ]);
  });
});
