import { watch, type FSWatcher } from 'node:fs';

/**
 * Watches folders and says that something in one of them changed: the folder as given, and the
 * file's name when the system tells it (the files are compared to find out what changed).
 * Returns how to stop watching. Throws when a folder cannot be watched
 * (no inotify watches left, a file system without change events support); `onError` hears of
 * a watch that fails later. Passed in, so tests of the wait need no real file system events.
 */
export type DirWatcher = (
  dirs: readonly string[],
  onChange: (dir: string, file: string | null) => void,
  onError: (error: Error) => void,
) => () => void;

/** The real watcher: one non-recursive fs.watch per folder. */
export const fsDirWatcher: DirWatcher = (dirs, onChange, onError) => {
  const watchers: FSWatcher[] = [];
  const close = () => watchers.splice(0).forEach((watcher) => watcher.close());
  try {
    for (const dir of dirs) {
      let watcher: FSWatcher;
      try {
        watcher = watch(dir, { persistent: false }, (_, file) => onChange(dir, file === null ? null : String(file)));
      } catch (error) {
        // A folder a task names but nobody made yet: the poll sees the file when it appears.
        if (['ENOENT', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) continue;
        throw error;
      }
      watcher.on('error', onError);
      watchers.push(watcher);
    }
  } catch (error) {
    close();
    throw error;
  }
  return close;
};
