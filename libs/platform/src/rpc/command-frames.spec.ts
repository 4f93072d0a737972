import { encodeFrame, FRAME_HEADER_BYTES, FrameDecoder } from './command-frames';

function decodeAll(chunks: Buffer[], max = 1024): Array<[number, string | undefined]> {
  const frames: Array<[number, string | undefined]> = [];
  const decoder = new FrameDecoder(max, (id, payload) => frames.push([id, payload?.toString('utf8')]));
  for (const chunk of chunks) decoder.push(chunk);
  return frames;
}

describe('command frames', () => {
  const stream = Buffer.concat([encodeFrame(1, '{"a":1}'), encodeFrame(7, '{"text":"é ✓"}'), encodeFrame(0xffffffff, '')]);
  const expected: Array<[number, string]> = [
    [1, '{"a":1}'],
    [7, '{"text":"é ✓"}'],
    [0xffffffff, ''],
  ];

  it('carries the payload length in bytes, not characters', () => {
    const frame = encodeFrame(3, 'é');
    expect(frame.readUInt32BE(0)).toBe(2);
    expect(frame.length).toBe(FRAME_HEADER_BYTES + 2);
  });

  it('cuts several frames out of one chunk', () => {
    expect(decodeAll([stream])).toEqual(expected);
  });

  it('reassembles frames however the stream is split, down to one byte at a time', () => {
    for (let size = 1; size <= stream.length; size++) {
      const chunks: Buffer[] = [];
      for (let at = 0; at < stream.length; at += size) chunks.push(stream.subarray(at, at + size));
      expect(decodeAll(chunks)).toEqual(expected);
    }
  });

  it('skips a frame over the limit without buffering it, reports it by id, and reads the next one', () => {
    const big = encodeFrame(5, 'x'.repeat(5000));
    const after = encodeFrame(6, '{"ok":true}');
    const whole = Buffer.concat([big, after]);
    expect(decodeAll([whole])).toEqual([
      [5, undefined],
      [6, '{"ok":true}'],
    ]);
    // Split inside the oversized payload: the rest of it is skipped as it arrives.
    const chunks = [whole.subarray(0, 100), whole.subarray(100, 3000), whole.subarray(3000)];
    expect(decodeAll(chunks)).toEqual([
      [5, undefined],
      [6, '{"ok":true}'],
    ]);
  });
});
