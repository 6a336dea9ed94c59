// Words to lines for a terminal: `clab explain`'s teaching text and worked example, and the
// notes under a sweep table.

/**
 * Lines of at most `width` columns (a single word longer than that keeps its own line), the
 * first starting with `first`, the others with `rest`.
 */
export function wrapWords(text: string, width: number, first: string, rest = first): string[] {
  const lines: string[] = [];
  let line = '';
  const prefix = () => (lines.length ? rest : first);
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && prefix().length + line.length + 1 + word.length > width) {
      lines.push(prefix() + line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(prefix() + line);
  return lines;
}
