/**
 * A JSON pointer into a board or front-matter in the words of the file, the one way messages name
 * a field (pure): `/current` → `current`, `/supervisor/timeout` → `supervisor.timeout`, `/tasks/1`
 * → `tasks item 2` (items counted from 1, as a person counts lines of a list), `/supervisor/periodic/0/role`
 * → `supervisor.periodic item 1, role`; the whole document (`` or `/`) → ``.
 */
export function fieldWords(pointer: string): string {
  let words = '';
  let afterItem = false;
  for (const key of pointer
    .split('/')
    .slice(1)
    .filter((k) => k !== '')) {
    const name = key.replaceAll('~1', '/').replaceAll('~0', '~');
    if (/^\d+$/.test(name)) {
      words += `${words ? ' ' : ''}item ${Number(name) + 1}`;
      afterItem = true;
    } else {
      words += words ? `${afterItem ? ', ' : '.'}${name}` : name;
      afterItem = false;
    }
  }
  return words;
}

/** A schema message that starts with its pointer (`/tasks/1 must be a string`) in the same words (pure). */
export function plainSchemaMessage(message: string): string {
  const match = /^(\/\S*) /.exec(message);
  if (!match) return message;
  const words = fieldWords(match[1] as string);
  return words ? `${words} ${message.slice(match[0].length)}` : message.slice(match[0].length);
}
