import stringWidth from 'string-width';

/** How many terminal columns plain text takes (wide characters and emoji count two). */
export function columnsOf(text: string): number {
  return stringWidth(text);
}

/** Cut plain text to at most `columns` terminal columns, marking the cut with an ellipsis (pure). */
export function fitColumns(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text;
  let out = '';
  let used = 0;
  for (const { segment } of new Intl.Segmenter().segment(text)) {
    const width = stringWidth(segment);
    if (used + width > columns - 1) break;
    out += segment;
    used += width;
  }
  return columns >= 1 ? `${out}…` : '';
}

/** Keep the end of plain text within `columns` columns, marking the cut at the start (pure). */
export function fitColumnsEnd(text: string, columns: number): string {
  if (stringWidth(text) <= columns) return text;
  const segments = [...new Intl.Segmenter().segment(text)].map((s) => s.segment);
  let out = '';
  let used = 0;
  for (let i = segments.length - 1; i >= 0; i--) {
    const width = stringWidth(segments[i] as string);
    if (used + width > columns - 1) break;
    out = `${segments[i] as string}${out}`;
    used += width;
  }
  return `…${out}`;
}
