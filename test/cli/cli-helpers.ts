import { execFile } from 'node:child_process';
import { basicAuthHeader, compiledMain, REPO_ROOT } from '../helpers/server-process.js';

/** Result of one CLI run, whatever its exit code. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `heddle <args>` (the compiled dist/main.js) with exactly `env` plus PATH/HOME; never throws on exit codes. */
export function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliRun> {
  const base = { PATH: process.env.PATH, HOME: process.env.HOME };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [compiledMain(), ...args],
      { cwd: REPO_ROOT, env: { ...base, ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** POST a JSON body to a running server with Basic credentials. */
export async function postJson(
  baseUrl: string,
  url: string,
  body: unknown,
  key: string,
): Promise<{ status: number; json: unknown; text: string }> {
  const res = await fetch(`${baseUrl}${url}`, {
    method: 'POST',
    headers: { authorization: basicAuthHeader(key), 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // JSON Lines or empty
  }
  return { status: res.status, json, text };
}

/** A minimal call start for `/call/start` or a batch item. */
export function startOf(projectId: string, id: string): Record<string, unknown> {
  return {
    project_id: projectId,
    id,
    trace_id: id,
    op_name: 'op',
    started_at: '2025-01-01T10:00:00Z',
    attributes: {},
    inputs: { id },
  };
}

/** The ids of every call in a project (JSON Lines from /calls/stream_query). */
export async function callIds(baseUrl: string, projectId: string, key: string): Promise<Set<string>> {
  const res = await postJson(baseUrl, '/calls/stream_query', { project_id: projectId, columns: ['id'] }, key);
  if (res.status !== 200) throw new Error(`stream_query → ${res.status} ${res.text.slice(0, 300)}`);
  return new Set(
    res.text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => (JSON.parse(line) as { id: string }).id),
  );
}
