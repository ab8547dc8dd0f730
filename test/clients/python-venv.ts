import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { withFileLock } from '../helpers/file-lock.js';
import { REPO_ROOT } from '../helpers/server-process.js';

const execFileP = promisify(execFile);

/** The pinned official client: the version docs/python-client.md was written against. */
export const WEAVE_PY_VERSION = '0.54.0';

/** Gitignored; reused between runs once the pinned package imports. */
export const VENV_DIR = path.join(REPO_ROOT, '.cache', 'venv-py');

/** Where the venv came from, or why there is none. */
export type VenvResult = { ok: true; python: string } | { ok: false; reason: string };

export async function run(file: string, args: string[], timeoutMs: number): Promise<{ ok: boolean; out: string }> {
  try {
    const { stdout, stderr } = await execFileP(file, args, {
      cwd: REPO_ROOT,
      timeout: timeoutMs,
      maxBuffer: 32 * 1024 * 1024,
    });
    return { ok: true, out: `${stdout}${stderr}` };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, out: `${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`.slice(-4000) };
  }
}

/** A virtualenv holding one pinned PyPI package (and optionally more, each pinned too). */
export interface PipVenvSpec {
  /** Gitignored; reused between runs once every pinned package is installed at its version. */
  dir: string;
  /** The distribution to install, and the version to pin. */
  pkg: string;
  version: string;
  /** Further distributions installed in the same pip run: name (extras allowed, `a[b]`) → exact version. */
  more?: Record<string, string>;
}

const pythonIn = (spec: PipVenvSpec): string => path.join(spec.dir, 'bin', 'python');

/** Every pinned requirement of a spec, `pkg` first. */
const pins = (spec: PipVenvSpec): Array<[string, string]> => [
  [spec.pkg, spec.version],
  ...Object.entries(spec.more ?? {}),
];

/** The distribution name pip's metadata knows (extras dropped). */
const distName = (requirement: string): string => requirement.replace(/\[.*\]$/, '');

/** The installed versions of the pinned packages, in `pins` order (`null` when missing or not importable). */
async function installedVersions(spec: PipVenvSpec): Promise<Array<string | null> | null> {
  if (!fs.existsSync(pythonIn(spec))) return null;
  const names = JSON.stringify(pins(spec).map(([name]) => distName(name)));
  const res = await run(
    pythonIn(spec),
    [
      '-c',
      `import importlib.metadata as m, json\ndef v(n):\n  try: return m.version(n)\n  except Exception: return None\nprint(json.dumps([v(n) for n in json.loads(${JSON.stringify(names)})]))`,
    ],
    60_000,
  );
  return res.ok ? (JSON.parse(res.out.trim()) as Array<string | null>) : null;
}

async function isInstalled(spec: PipVenvSpec): Promise<boolean> {
  const versions = await installedVersions(spec);
  return versions !== null && pins(spec).every(([, version], i) => versions[i] === version);
}

/** A base interpreter that can make virtualenvs; as root under CI, installs one with apt-get. */
async function basePython(ci: boolean): Promise<string | null> {
  for (const candidate of ['python3', 'python']) {
    if ((await run(candidate, ['-c', 'import venv, ensurepip'], 30_000)).ok) return candidate;
  }
  if (ci && process.getuid?.() === 0) {
    await run('apt-get', ['update'], 300_000);
    const apt = await run('apt-get', ['install', '-y', 'python3', 'python3-venv', 'python3-pip'], 600_000);
    if (apt.ok && (await run('python3', ['-c', 'import venv, ensurepip'], 30_000)).ok) return 'python3';
  }
  return null;
}

/**
 * Makes sure `spec.dir` holds `spec.pkg==spec.version`, creating or repairing it with pip.
 * Returns `ok: false` with the reason when that is impossible (no interpreter, no network); the
 * caller fails under CI=true and may skip otherwise.
 */
export async function ensurePipVenv(spec: PipVenvSpec): Promise<VenvResult> {
  if (await isInstalled(spec)) return { ok: true, python: pythonIn(spec) };
  // several client test files start at once on a clean clone: one builds the venv, the others wait
  return withFileLock(`heddle-test-${path.basename(spec.dir)}`, async () => {
    if (await isInstalled(spec)) return { ok: true, python: pythonIn(spec) };
    return buildVenv(spec);
  });
}

/** `.cache/venv-py` with weave==WEAVE_PY_VERSION. */
export function ensureWeaveVenv(): Promise<VenvResult> {
  return ensurePipVenv({ dir: VENV_DIR, pkg: 'weave', version: WEAVE_PY_VERSION });
}

async function buildVenv(spec: PipVenvSpec): Promise<VenvResult> {
  const ci = process.env.CI === 'true';
  const pinned = pins(spec).map(([name, version]) => `${name}==${version}`);
  if (!fs.existsSync(pythonIn(spec))) {
    const base = await basePython(ci);
    if (base === null) return { ok: false, reason: 'no Python 3 interpreter with the venv module' };
    fs.mkdirSync(path.dirname(spec.dir), { recursive: true });
    const made = await run(base, ['-m', 'venv', spec.dir], 300_000);
    if (!made.ok) return { ok: false, reason: `python -m venv failed:\n${made.out}` };
  }
  const pip = await run(
    pythonIn(spec),
    ['-m', 'pip', 'install', '--disable-pip-version-check', '-q', ...pinned],
    900_000,
  );
  if (!pip.ok) return { ok: false, reason: `pip install ${pinned.join(' ')} failed:\n${pip.out}` };
  const versions = (await installedVersions(spec)) ?? [];
  const wrong = pins(spec).filter(([, version], i) => versions[i] !== version);
  if (wrong.length > 0) {
    const found = pins(spec).map(([name], i) => `${name} ${versions[i] ?? 'missing'}`);
    return { ok: false, reason: `after pip install ${pinned.join(' ')}: ${found.join(', ')}` };
  }
  return { ok: true, python: pythonIn(spec) };
}

/** The pinned official Python MCP client (PyPI `mcp`), the version docs/mcp.md was tested with. */
export const MCP_PY_VERSION = '2.3.0';

/** `.cache/venv-mcp` with mcp==MCP_PY_VERSION (its own venv: its dependencies need not agree with weave's). */
export function ensureMcpVenv(): Promise<VenvResult> {
  return ensurePipVenv({ dir: path.join(REPO_ROOT, '.cache', 'venv-mcp'), pkg: 'mcp', version: MCP_PY_VERSION });
}

/**
 * The agent frameworks of test/clients/agent-frameworks.test.ts and docs/agents.md, with what exports
 * their spans: pydantic-ai (GenAI spans native; the slim package with only the OpenAI model extra),
 * openai-agents with the OpenTelemetry contrib GenAI instrumentation, and the OTel SDK + OTLP/HTTP exporter.
 */
export const AGENT_FRAMEWORK_PINS = {
  'pydantic-ai-slim[openai]': '2.68.0',
  'openai-agents': '0.24.0',
  'opentelemetry-instrumentation-openai-agents-v2': '0.1.0',
  'opentelemetry-processor-baggage': '0.66b1',
  'opentelemetry-sdk': '1.45.2',
  'opentelemetry-exporter-otlp-proto-http': '1.45.2',
} as const;

/** `.cache/venv-agents` with every AGENT_FRAMEWORK_PINS package at its version. */
export function ensureAgentFrameworksVenv(): Promise<VenvResult> {
  const { 'pydantic-ai-slim[openai]': version, ...more } = AGENT_FRAMEWORK_PINS;
  return ensurePipVenv({
    dir: path.join(REPO_ROOT, '.cache', 'venv-agents'),
    pkg: 'pydantic-ai-slim[openai]',
    version,
    more,
  });
}
