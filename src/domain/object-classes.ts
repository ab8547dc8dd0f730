import { isJsonObject, type JsonValue } from './json-value.js';

/**
 * What the value of an object version says about itself: its Weave class (docs/spec/objects.md §2.2)
 * and whether it is an op (§2.3).
 */

export interface ObjectClasses {
  base_object_class: string | null;
  leaf_object_class: string | null;
}

/** The two roots of Weave's object classes; a detectable class sits directly on one of them. */
const ROOT_CLASSES = new Set(['Object', 'BaseObject']);

/**
 * §2.2: a value with `_bases` ending in `[Object|BaseObject, "BaseModel"]` names its leaf class
 * in `_class_name` and its base class just below the root. Null when the value is not such an
 * object.
 */
export function detectObjectClasses(val: JsonValue): ObjectClasses | null {
  if (!isJsonObject(val) || !Array.isArray(val._bases) || !('_class_name' in val)) return null;
  const bases = val._bases;
  const n = bases.length;
  if (
    n < 2 ||
    bases[n - 1] !== 'BaseModel' ||
    typeof bases[n - 2] !== 'string' ||
    !ROOT_CLASSES.has(bases[n - 2] as string)
  )
    return null;
  const leaf = typeof val._class_name === 'string' ? val._class_name : null;
  const base = n === 2 ? leaf : typeof bases[n - 3] === 'string' ? (bases[n - 3] as string) : null;
  return { base_object_class: base, leaf_object_class: leaf };
}

/**
 * §2.3: an op is stored as a value whose effective type is "Op": `weave_type.type` when
 * `weave_type` is present (the usual `CustomWeaveType` form), else `_type`.
 */
export function objectKind(val: JsonValue): 'op' | 'object' {
  if (!isJsonObject(val) || !('_type' in val)) return 'object';
  const weaveType = val.weave_type;
  const effective = weaveType !== undefined ? (isJsonObject(weaveType) ? weaveType.type : undefined) : val._type;
  return effective === 'Op' ? 'op' : 'object';
}

/** Longest object id (docs/spec/objects.md §3.1; longer → 400). */
export const MAX_OBJECT_ID_LENGTH = 128;

/** Characters an object id may not contain: anything but Unicode letters, digits, `_`, `.`, `-`. */
const BAD_OBJECT_ID_CHARS = /[^\p{L}\p{N}_.-]/gu;

/** The distinct characters that make an object id invalid, in order of appearance ([] when valid). */
export function invalidObjectIdChars(objectId: string): string[] {
  return [...new Set(objectId.match(BAD_OBJECT_ID_CHARS) ?? [])];
}
