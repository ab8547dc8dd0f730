import { isRecord } from './is-record.js';

/**
 * Files that weave stores beside a value: `{"_type": "CustomWeaveType", "weave_type": {"type":
 * "PIL.Image.Image"}, "files": {"image.png": "<digest>"}}` for images, and the newer
 * `weave.type_wrappers.Content.content.Content` with files `content` + `metadata.json`.
 */
export interface FileValue {
  typeName: string;
  files: { name: string; digest: string }[];
  /** The file that holds the payload (the image for image types). */
  main: { name: string; digest: string } | null;
  isImage: boolean;
}

export function asFileValue(v: unknown): FileValue | null {
  if (!isRecord(v) || v._type !== 'CustomWeaveType' || !isRecord(v.files)) return null;
  const typeName = isRecord(v.weave_type) && typeof v.weave_type.type === 'string' ? v.weave_type.type : 'unknown';
  const files = Object.entries(v.files)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([name, digest]) => ({ name, digest }));
  const main =
    files.find((f) => /\.(png|jpe?g|gif|webp)$/i.test(f.name)) ??
    files.find((f) => f.name === 'content') ??
    files.find((f) => f.name !== 'metadata.json') ??
    null;
  const isImage = /image/i.test(typeName) || (main != null && /\.(png|jpe?g|gif|webp)$/i.test(main.name));
  return { typeName, files, main, isImage };
}

/** The raster image type of some bytes from their signature; SVG and anything else → null. */
export function sniffImageType(b: Uint8Array): string | null {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  if (b.length >= 6 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46 && b[3] === 0x38) return 'image/gif';
  if (
    b.length >= 12 &&
    String.fromCharCode(...b.slice(0, 4)) === 'RIFF' &&
    String.fromCharCode(...b.slice(8, 12)) === 'WEBP'
  )
    return 'image/webp';
  return null;
}

/** `data:image/png;base64,…` URLs of raster types only (never SVG). */
export function isSafeImageDataUrl(s: string): boolean {
  return /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=\s]+$/.test(s);
}

/**
 * The text of a `weave.Markdown` value: `{"_type": "CustomWeaveType", "weave_type": {"type":
 * "weave.type_handlers.Markdown.markdown.Markdown"}, "val": {"markup": …, "code_theme": …}}` as
 * the Python client (0.54) stores it; null for anything else.
 */
export function markdownOf(v: unknown): string | null {
  if (!isRecord(v) || v._type !== 'CustomWeaveType' || !isRecord(v.weave_type)) return null;
  const type = v.weave_type.type;
  if (typeof type !== 'string' || !/(^|\.)Markdown$/.test(type)) return null;
  return isRecord(v.val) && typeof v.val.markup === 'string' ? v.val.markup : null;
}
