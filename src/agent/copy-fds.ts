import { closeSync, constants, fstatSync, openSync } from 'node:fs';

/**
 * Open the files a fence copies (`copy:`), in order, for bubblewrap to read from file
 * descriptors 3, 4, …: never following a link, never blocking; one that is gone or no longer a
 * regular file gives an empty copy (/dev/null). Opened per attempt, so each starts from the
 * originals; `close` once the fence has started.
 */
export function openCopies(files: readonly string[]): { fds: number[]; close: () => void } {
  const fds = files.map((file) => {
    try {
      const fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
      if (fstatSync(fd).isFile()) return fd;
      closeSync(fd);
    } catch {
      // gone since the fence was planned: an empty copy
    }
    return openSync('/dev/null', 'r');
  });
  return { fds, close: () => fds.forEach((fd) => closeSync(fd)) };
}
