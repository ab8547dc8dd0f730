/** Every keyboard shortcut, declared once: the help dialog lists this table. */
export const SHORTCUTS: { keys: string; action: string; where: string }[] = [
  { keys: '?', action: 'Show this list', where: 'Everywhere' },
  { keys: '/', action: 'Focus the field filter', where: 'Traces' },
  { keys: 's', action: 'Focus the search box (text in inputs or output)', where: 'Traces' },
  { keys: '↓ or j, ↑ or k', action: 'Next / previous row', where: 'Traces table, call tree' },
  { keys: 'Page Down, Page Up, Home, End', action: 'Move by a page, to the first or last row', where: 'Traces table' },
  { keys: 'Enter', action: 'Open the call', where: 'Traces table' },
  { keys: 'x', action: 'Select the row (two or more selected: Compare)', where: 'Traces table' },
  { keys: '→, ←', action: 'Next / previous tab', where: 'Call view tabs' },
  { keys: '→, ←', action: 'Expand / collapse a call', where: 'Call tree' },
  { keys: 'j or →, k or ←', action: 'Next / previous item', where: 'Queue review' },
  { keys: 'u, d', action: 'Thumbs up / down, then the next item', where: 'Queue review' },
  { keys: 'n', action: 'Write a note (Enter saves, Escape leaves)', where: 'Queue review' },
  { keys: 's', action: 'Skip the item', where: 'Queue review' },
  { keys: '↓ or j, ↑ or k, Enter', action: 'Move between rows, open the row', where: 'Evaluation comparison' },
  { keys: 'Escape', action: 'Close this list', where: 'Shortcut list' },
];

/** True when a key press belongs to a text field rather than to the page. */
export function isTyping(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName);
}
