import { createRequire } from 'node:module';

/**
 * Reaction emoji (docs/spec/objects.md §7.2 `wandb.reaction.1`): is the text exactly one emoji, and its
 * CLDR short name as a `:snake_case:` alias. Names come from the CLDR annotations that the
 * emojibase-data package ships (English labels such as "thumbs up: medium skin tone").
 */

interface EmojibaseEntry {
  label: string;
  hexcode: string;
  skins?: EmojibaseEntry[];
}

/** Variation selectors do not change which emoji a text is. */
const VARIATION = /[\uFE0E\uFE0F]/g;
/** Skin-tone modifiers U+1F3FB..U+1F3FF. */
const SKIN_TONE = /[\u{1F3FB}-\u{1F3FF}]/gu;

const key = (text: string): string => text.replace(VARIATION, '');

/** "thumbs up: medium skin tone" → ":thumbs_up_medium_skin_tone:"; flags drop their "flag: " prefix. */
function aliasOf(label: string): string {
  const name = label
    .replace(/^flag: /, '')
    .replace(/[:,]/g, '')
    .trim()
    .replace(/\s+/g, '_');
  return `:${name}:`;
}

let table: Map<string, string> | null = null;

/** Emoji (without variation selectors) → alias, built on first use. */
function aliases(): Map<string, string> {
  if (table) return table;
  const require = createRequire(import.meta.url);
  const data = require('emojibase-data/en/data.json') as EmojibaseEntry[];
  const out = new Map<string, string>();
  const add = (entry: EmojibaseEntry): void => {
    const emoji = String.fromCodePoint(...entry.hexcode.split('-').map((h) => parseInt(h, 16)));
    out.set(key(emoji), aliasOf(entry.label));
    for (const skin of entry.skins ?? []) add(skin);
  };
  for (const entry of data) add(entry);
  table = out;
  return out;
}

export interface ReactionNames {
  alias: string;
  detoned: string;
  detoned_alias: string;
}

/** The names of `text` when it is exactly one emoji; null otherwise ("👍👍", "a"). */
export function reactionNames(text: string): ReactionNames | null {
  const known = aliases();
  const alias = known.get(key(text));
  if (alias === undefined) return null;
  const detoned = text.replace(SKIN_TONE, '');
  return { alias, detoned, detoned_alias: known.get(key(detoned)) ?? alias };
}
