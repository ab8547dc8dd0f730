import fs from 'node:fs';
import path from 'node:path';

/**
 * Summaries of V8 `.cpuprofile` files (node --cpu-prof): where the samples fall, by area (our
 * src/ folders, each dependency, node internals, GC, idle) and by function (self time), plus the
 * inclusive time of our own functions.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  startTime: number;
  endTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The area a frame belongs to: `src/<folder>`, a package name, `node:internal`, or a V8 pseudo-frame. */
export function areaOf(url: string, functionName: string): string {
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const src = /\/(src|bench)\/([^/]+)\//.exec(url);
  if (src) return `${src[1]}/${src[2]}`;
  if (url.startsWith('node:'))
    return url.startsWith('node:internal/streams')
      ? 'node:streams'
      : url.startsWith('node:internal/http') || url.includes('_http')
        ? 'node:http'
        : 'node:internal';
  return path.basename(url);
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url === '' ? '' : ` ${url.replace(/^.*\/(node_modules|src|bench)\//, '$1/')}:${lineNumber + 1}`;
  return `${functionName || '(anonymous)'}${where}`;
}

/**
 * The part of a profile to keep, as epoch ms. The profile's own clock is anchored by its end: the
 * profiler stops as the process exits, at `exitedAt`.
 */
export interface ProfileWindow {
  from: number;
  to: number;
  exitedAt: number;
}

export function summarise(profile: Profile, top: number, window: ProfileWindow | null = null): string {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  let clockUs = 0;
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    clockUs += delta;
    const epochMs = window ? window.exitedAt - (profile.endTime - profile.startTime - clockUs) / 1000 : 0;
    if (window && (epochMs < window.from || epochMs > window.to)) return;
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
  });
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const areas = new Map<string, number>();
  const functions = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id)!;
    const area = areaOf(node.callFrame.url, node.callFrame.functionName);
    areas.set(area, (areas.get(area) ?? 0) + us);
    functions.set(label(node), (functions.get(label(node)) ?? 0) + us);
    // inclusive time of our own frames, each frame counted once per sample stack
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!;
      if (!/\/(src)\//.test(frame.callFrame.url)) continue;
      const name = label(frame);
      if (!seen.has(name)) inclusive.set(name, (inclusive.get(name) ?? 0) + us);
      seen.add(name);
    }
  }
  const busy = total - (areas.get('(idle)') ?? 0);
  const table = (title: string, map: Map<string, number>, base: number, limit: number): string => {
    const rows = [...map].sort((a, b) => b[1] - a[1]).slice(0, limit);
    return [
      `${title}`,
      ...rows.map(
        ([k, us]) =>
          `  ${((100 * us) / base).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(6)} ms  ${k}`,
      ),
    ].join('\n');
  };
  const span = window ? `, cut to the measured ${((window.to - window.from) / 1000).toFixed(2)} s` : '';
  return [
    `profile: ${(total / 1e6).toFixed(2)} s sampled${span}, ${(busy / 1e6).toFixed(2)} s busy (percentages of busy time)`,
    table('by area (self time):', areas, busy, 30),
    table('by function (self time):', functions, busy, top),
    table('our functions (inclusive time):', inclusive, busy, top),
  ].join('\n\n');
}

/**
 * Writes `<phase>.txt` into `dir` for every `<phase>/` folder of profiles (the main thread's
 * profile, `.0.` in its name), cut to the phase's measured window when known (so start-up and
 * warm-up are left out); returns the written paths.
 */
export function summariseDir(dir: string, windows: ReadonlyMap<string, ProfileWindow>, top = 25): string[] {
  const written: string[] = [];
  for (const phase of fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory())) {
    const main = fs.readdirSync(path.join(dir, phase.name)).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
    if (!main) continue;
    const out = path.join(dir, `${phase.name}.txt`);
    fs.writeFileSync(
      out,
      `${summarise(readProfile(path.join(dir, phase.name, main)), top, windows.get(phase.name) ?? null)}\n`,
    );
    written.push(out);
  }
  return written;
}

export function readProfile(file: string): Profile {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
}
