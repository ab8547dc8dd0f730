/**
 * Deterministic generators of malformed request bodies for the "never a 500" test. The same seed
 * always yields the same bodies, so a failure names a body that can be replayed.
 */

/** mulberry32: small, fast, good enough to pick shapes. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Fuzzer {
  constructor(private readonly rand: () => number) {}

  int(n: number): number {
    return Math.floor(this.rand() * n);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  string(): string {
    return this.pick([
      '',
      ' ',
      'x',
      'acme/demo',
      'other/x',
      'acme',
      '/',
      'weave:///',
      'weave:///acme/demo/object/X:',
      'weave:///acme/demo/call/',
      '2025-13-45T99:99:99Z',
      '2025-01-01T10:00:00Z',
      '1e309',
      '-1',
      '9'.repeat(40),
      'NaN',
      'true',
      'null',
      '\u0000\u0001\u001f',
      '\ud800',
      '😀'.repeat(50),
      '$expr',
      '$eq',
      'a'.repeat(this.int(5000)),
      '../../etc/passwd',
      "'; DROP TABLE calls; --",
      '%s%n%x',
      '__proto__',
    ]);
  }

  number(): number {
    return this.pick([
      0,
      -0,
      1,
      -1,
      0.5,
      1e308,
      -1e308,
      2 ** 53 + 1,
      -(2 ** 63),
      1e-320,
      123456789012,
      this.rand() * 1e6,
    ]);
  }

  /** A random JSON value, nested at most `depth` levels. */
  value(depth = 3): unknown {
    const kind = this.int(depth > 0 ? 8 : 5);
    switch (kind) {
      case 0:
        return null;
      case 1:
        return this.rand() < 0.5;
      case 2:
        return this.number();
      case 3:
      case 4:
        return this.string();
      case 5:
        return Array.from({ length: this.int(4) }, () => this.value(depth - 1));
      default: {
        const obj: Record<string, unknown> = {};
        for (let i = this.int(4); i > 0; i -= 1)
          obj[this.pick([this.string(), '$and', '$or', '$not', '$getField', '$literal', 'project_id', 'id'])] =
            this.value(depth - 1);
        return obj;
      }
    }
  }

  /** A copy of `valid` with one place changed: a value replaced, a key removed or an unknown key added. */
  mutate(valid: unknown): unknown {
    const copy = structuredClone(valid) as unknown;
    const containers: Array<Record<string, unknown> | unknown[]> = [];
    const walk = (node: unknown): void => {
      if (node !== null && typeof node === 'object') {
        containers.push(node as Record<string, unknown>);
        for (const child of Object.values(node)) walk(child);
      }
    };
    walk(copy);
    if (containers.length === 0) return this.value();
    const target = this.pick(containers);
    const keys = Object.keys(target);
    const action = keys.length === 0 ? 2 : this.int(4);
    if (Array.isArray(target)) {
      if (action === 1 && target.length > 0) target.splice(this.int(target.length), 1);
      else target[keys.length === 0 ? 0 : this.int(target.length)] = this.value(2);
    } else if (action === 0 || action === 3) {
      target[this.pick(keys)] = this.value(2);
    } else if (action === 1) {
      delete target[this.pick(keys)];
    } else {
      target[this.string() || 'extra'] = this.value(1);
    }
    return copy;
  }

  /** Text that is not JSON, or JSON that is hostile in shape. */
  rawText(validJson: string): string {
    const depth = 1 + this.int(20_000);
    return this.pick([
      '',
      ' ',
      '{',
      '}',
      '[',
      'null',
      '"a string"',
      '42',
      'true',
      '{"a":}',
      "{'single': 'quotes'}",
      '{"a":1,}',
      '{"a":NaN}',
      '{"a":Infinity}',
      '\u0000',
      '\ufeff{}',
      validJson.slice(0, this.int(Math.max(1, validJson.length))),
      `${validJson}${validJson}`,
      `${'['.repeat(depth)}${']'.repeat(depth)}`,
      `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      '{"__proto__":{"polluted":true}}',
      '{"constructor":{"prototype":{"polluted":true}}}',
      Buffer.from(Array.from({ length: 64 }, () => this.int(256))).toString('latin1'),
    ]);
  }
}
