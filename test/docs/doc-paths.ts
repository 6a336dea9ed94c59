// What the docs tests read in a Markdown file: the repository paths it writes in backticks, the
// files and anchors its links point to, its tables and its headings' anchors. Pure, so each rule can
// be shown to fail on a few lines of text.

/** Folders whose paths the docs name in backticks and that must exist. */
const PATH_ROOTS = ['src', 'test', 'bench', 'native', 'docs'];
const PATH_TOKEN = new RegExp(`^(?:${PATH_ROOTS.join('|')})/[\\w.@+/-]*$`);

/** Text without fenced code blocks: a diagram or a sample error is not a claim about the tree. */
function withoutFences(text: string): string {
  return text.replace(/^```[^\n]*\n[\s\S]*?^```[^\n]*$/gm, '');
}

/**
 * Every repository path written in backticks: each word of a `code span` that starts with one of
 * the tree's folders (`bash bench/gpu/sweep.sh` names bench/gpu/sweep.sh). Words with placeholders
 * (`<room>`, `{a,b}`, `*`) name no one file and are passed over; an anchor or a trailing colon is cut.
 */
export function backtickPaths(text: string): string[] {
  const paths = new Set<string>();
  for (const span of withoutFences(text).matchAll(/`([^`\n]+)`/g)) {
    for (const word of span[1].split(/\s+/)) {
      const token = word
        .replace(/^["'(]+/, '')
        .replace(/[)"',:;.]+$/, '')
        .replace(/#.*$/, '');
      if (PATH_TOKEN.test(token)) paths.add(token);
    }
  }
  return [...paths];
}

export interface Link {
  target: string;
  anchor?: string;
}

/** Links to files of this repository, `[text](path#anchor)` or `[text](#anchor)`; web addresses are left out. */
export function localLinks(text: string): Link[] {
  const links: Link[] = [];
  for (const m of withoutFences(text).matchAll(/\]\(([^)\s]+)\)/g)) {
    const href = m[1];
    if (/^[a-z]+:/i.test(href)) continue;
    const [target, anchor] = href.split('#', 2);
    links.push({ target, anchor: anchor || undefined });
  }
  return links;
}

/** The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen. */
export function slug(heading: string): string {
  return heading
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a file's headings, a repeated one numbered as GitHub numbers it (-1, -2, …). */
export function anchors(text: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of withoutFences(text).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(m[1]);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

export interface Table {
  header: string[];
  rows: number;
}

/** Markdown tables: a header row, a `|---|` line, and the rows after it. */
export function tables(text: string): Table[] {
  const lines = withoutFences(text).split('\n');
  const found: Table[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (!/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(lines[i]) || !lines[i - 1].includes('|')) continue;
    const header = lines[i - 1]
      .split('|')
      .map((c) => c.trim().toLowerCase())
      .filter((c) => c !== '');
    let rows = 0;
    while (i + 1 + rows < lines.length && lines[i + 1 + rows].trim().startsWith('|')) rows++;
    found.push({ header, rows });
  }
  return found;
}

/** A table of measured figures: one with a column called figure (or figures). */
export function isFiguresTable(table: Table): boolean {
  return table.header.some((c) => /^figures?$/.test(c));
}
