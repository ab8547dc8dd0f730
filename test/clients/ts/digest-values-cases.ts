/**
 * The values test/clients/ts/digest-values.ts publishes through the official TS client, shared with
 * test/clients/client-digests.test.ts. Names match test/clients/python/digest_values.py.
 *
 * The TS client computes no object or table digests while publishing (it takes the digest from the
 * /obj/create and /table/create answers); its package ships `valDigest` (digest.js: sorted keys,
 * `", "`/`": "` separators, then the §1.1 digest) and uses `computeDigest` for file bytes. Where
 * `valDigest` renders a value differently from Python's `json.dumps` (docs/spec/objects.md §1.9), the
 * expected answer is the reference one, not the helper's.
 */
import type { ScriptOutputBase } from './record-fetch.js';

export interface TsDigestCase {
  name: string;
  value: unknown;
  /** valDigest(value) equals the digest the reference algorithm gives for the JSON the client sends. */
  helperAgrees: boolean;
  /**
   * The Python case (digest_values.py) whose server digest this one must equal: the same name when
   * the client sends the same JSON value, another when the value changes in transit, null when no
   * Python case has the value that arrives.
   */
  pythonTwin: string | null;
  /** Why the helper or the Python value differs. */
  note: string;
}

export const TS_CASES: TsDigestCase[] = [
  {
    name: 'float_one',
    value: { x: 1.0 },
    helperAgrees: true,
    pythonTwin: 'int_one',
    note: 'JS has one number type: 1.0 is sent as 1 (the int_one digest)',
  },
  { name: 'int_one', value: { x: 1 }, helperAgrees: true, pythonTwin: 'int_one', note: '' },
  { name: 'float_tenth', value: { x: 0.1 }, helperAgrees: true, pythonTwin: 'float_tenth', note: '' },
  {
    name: 'float_1e300',
    value: { x: 1e300 },
    helperAgrees: true,
    pythonTwin: 'float_1e300',
    note: 'sent as 1e+300, a float literal',
  },
  {
    name: 'float_neg_zero',
    value: { x: -0 },
    helperAgrees: true,
    pythonTwin: 'int_zero',
    note: 'JSON.stringify(-0) is "0": sent as the integer 0 (the int_zero digest)',
  },
  { name: 'int_zero', value: { x: 0 }, helperAgrees: true, pythonTwin: 'int_zero', note: '' },
  {
    name: 'float_small_exp',
    value: { a: 1e-5, b: 2.5e-7, c: 0.0001 },
    helperAgrees: false,
    pythonTwin: 'float_small_exp',
    note: 'valDigest prints 0.00001 and 2.5e-7; Python repr is 1e-05 and 2.5e-07',
  },
  {
    name: 'float_large_exp',
    value: {
      d: 1e16,
      e: 9999999999999998.0,
      // eslint-disable-next-line no-loss-of-precision -- 17 digits on purpose: both clients print the nearest double
      f: 1.2345678901234567e-300,
      g: 5e-324,
      h: 1.7976931348623157e308,
      i: 1e21,
      j: 123456.789,
    },
    helperAgrees: true,
    pythonTwin: null,
    note: '1e16 and 9999999999999998.0 are sent as integer literals (no "." or "e"), Python sends floats',
  },
  {
    name: 'float_thirds',
    value: { x: 1 / 3, y: -2 / 3, z: 100.0 },
    helperAgrees: true,
    pythonTwin: null,
    note: '100.0 is sent as 100',
  },
  {
    name: 'emoji_non_bmp',
    value: { s: '\u{1F600}\u{1F389} \u{1D11E}' },
    helperAgrees: false,
    pythonTwin: 'emoji_non_bmp',
    note: 'valDigest does not escape non-ASCII',
  },
  {
    name: 'combining',
    value: { s: 'e\u0301 n\u0303 a\u030a' },
    helperAgrees: false,
    pythonTwin: 'combining',
    note: 'valDigest does not escape non-ASCII',
  },
  {
    name: 'rtl',
    value: { he: '\u05e9\u05dc\u05d5\u05dd', ar: '\u0645\u0631\u062d\u0628\u0627', marks: '\u200fabc\u200e' },
    helperAgrees: false,
    pythonTwin: 'rtl',
    note: 'valDigest does not escape non-ASCII',
  },
  {
    name: 'unicode_keys',
    value: { '\u{1F600}': 1, '\ue000': 2, '\u00e9': 3, z: 4, Z: 5 },
    helperAgrees: false,
    pythonTwin: 'unicode_keys',
    note: 'valDigest does not escape non-ASCII and sorts keys by UTF-16 unit (😀 before U+E000)',
  },
  {
    name: 'ascii_escapes',
    value: { s: 'quote" backslash\\ slash/ nl\n tab\t cr\r bs\b ff\f nul\u0000 us\u001f' },
    helperAgrees: true,
    pythonTwin: 'ascii_escapes',
    note: '',
  },
  {
    name: 'del_nbsp',
    value: { s: 'del\u007f nbsp\u00a0' },
    helperAgrees: false,
    pythonTwin: 'del_nbsp',
    note: 'JSON.stringify leaves DEL and U+00A0 unescaped',
  },
  {
    name: 'nested',
    value: {
      z: { b: [1, { d: null, c: [true, false, 1.5] }], a: { deep: { deeper: { deepest: [[], [{}]] } } } },
      a: [
        [1, 2],
        [3.0, '4'],
      ],
    },
    helperAgrees: true,
    pythonTwin: null,
    note: '3.0 is sent as 3',
  },
  {
    name: 'nulls_bools_empties',
    value: { n: null, t: true, f: false, e: {}, l: [], s: '' },
    helperAgrees: true,
    pythonTwin: 'nulls_bools_empties',
    note: '',
  },
  { name: 'empty_object', value: {}, helperAgrees: true, pythonTwin: 'empty_object', note: '' },
  { name: 'empty_list', value: [], helperAgrees: true, pythonTwin: 'empty_list', note: '' },
  {
    name: 'list_mixed',
    value: [1, 1.0, -0, null, true, 'x', [], {}],
    helperAgrees: true,
    pythonTwin: null,
    note: '1.0 and -0.0 are sent as 1 and 0',
  },
];

/** Values the TS client cannot publish as objects; the script records what happens. */
export const TS_UNPUBLISHABLE: Array<{ name: string; value: () => unknown; note: string }> = [
  {
    name: 'int_2p53_plus_1',
    value: () => ({ x: 2n ** 53n + 1n }),
    note: 'a JS number cannot hold 2^53+1; a BigInt makes JSON.stringify throw',
  },
  { name: 'int_huge', value: () => ({ x: 12345678901234567890123456789n }), note: 'as above' },
  { name: 'null', value: () => null, note: 'publish reads null.__savedRef' },
  { name: 'bool_true', value: () => true, note: 'publish assigns __savedRef on a primitive (strict mode)' },
  { name: 'bare_float', value: () => 1.5, note: 'as above' },
  { name: 'bare_string', value: () => 'h\u00e9llo \u{1F600}', note: 'as above' },
];

export interface DigestValuesOutput extends ScriptOutputBase {
  /** Per TS_CASES entry: the digest in the ref publish returned and valDigest(value). */
  objects: Record<string, { refDigest: string | null; helperDigest: string; error: string | null }>;
  /** Per TS_UNPUBLISHABLE entry: the error publish raised, or null if it returned a ref. */
  unpublishable: Record<string, { error: string | null; refDigest: string | null }>;
  /** Datasets published: all object cases as rows / only the cases where valDigest agrees. */
  tables: Record<
    'all' | 'agreeing',
    { names: string[]; datasetUri: string | null; helperRowDigests: string[]; helperTableDigest: string }
  >;
  /** A file (an image value) whose digest the client computes itself (computeDigest). */
  file: { bytes: number; clientDigest: string | null; objectDigest: string | null };
}
