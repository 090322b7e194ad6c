/** One frame of the Engine API's multiplexed stream (src/sandbox/docker/exec-frames.ts), for stand-in engines. */
export function frame(type: number, payload: string | Buffer): Buffer {
  const body = typeof payload === "string" ? Buffer.from(payload) : payload;
  const header = Buffer.alloc(8);
  header[0] = type;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}
