/** Write to a stream unless it was closed: output nobody can read any more is dropped, not an error. */
export function writeIfOpen(stream: NodeJS.WritableStream, text: string): void {
  const open = stream as NodeJS.WritableStream & { destroyed?: boolean; writableEnded?: boolean };
  if (!open.destroyed && !open.writableEnded) stream.write(text);
}
