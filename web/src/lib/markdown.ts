/** Pure parts of the Markdown view (ui/markdown.tsx): link checks and block parsing. */

/** An href when `url` is an allowed absolute link, else null. */
export function safeHref(url: string): string | null {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' || u.protocol === 'mailto:' ? u.href : null;
  } catch {
    return null;
  }
}

// underscores mark emphasis only outside words (`snake_case`, `__init__` stay as they are)
export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'p' | 'quote'; text: string }
  | { kind: 'ul' | 'ol'; items: string[] }
  | { kind: 'code'; text: string };

export function parseBlocks(text: string): Block[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: Block[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (/^\s*```/.test(line)) {
      const body: string[] = [];
      i += 1;
      while (i < lines.length && !/^\s*```/.test(lines[i]!)) body.push(lines[i++]!);
      i += 1;
      blocks.push({ kind: 'code', text: body.join('\n') });
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      blocks.push({ kind: 'heading', level: heading[1]!.length, text: heading[2]! });
      i += 1;
      continue;
    }
    const listKind = /^\s*[-*+]\s+/.test(line) ? 'ul' : /^\s*\d+[.)]\s+/.test(line) ? 'ol' : null;
    if (listKind) {
      const items: string[] = [];
      const marker = listKind === 'ul' ? /^\s*[-*+]\s+/ : /^\s*\d+[.)]\s+/;
      while (i < lines.length && marker.test(lines[i]!)) items.push(lines[i++]!.replace(marker, ''));
      blocks.push({ kind: listKind, items });
      continue;
    }
    if (line.trim() === '') {
      i += 1;
      continue;
    }
    const quote = /^>\s?/.test(line);
    const body: string[] = [];
    while (
      i < lines.length &&
      lines[i]!.trim() !== '' &&
      /^>\s?/.test(lines[i]!) === quote &&
      !/^(#{1,6}\s|\s*```|\s*[-*+]\s|\s*\d+[.)]\s)/.test(lines[i]!)
    )
      body.push(lines[i++]!.replace(/^>\s?/, ''));
    blocks.push({ kind: quote ? 'quote' : 'p', text: body.join(' ') });
  }
  return blocks;
}
