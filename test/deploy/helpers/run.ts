import { execFile } from 'node:child_process';

/** What a command printed, stdout and stderr apart. */
export interface RunResult {
  stdout: string;
  stderr: string;
}

/** Runs `file args`; rejects with the command line, the exit status and the output's tail. */
export function run(
  file: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive', ...opts.env },
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? 120_000,
        maxBuffer: 64 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        if (error)
          reject(
            new Error(
              `${file} ${args.join(' ')} failed: ${error.message}\n--- stdout\n${stdout.slice(-4000)}\n--- stderr\n${stderr.slice(-4000)}`,
            ),
          );
        else resolve({ stdout, stderr });
      },
    );
  });
}

/** Whether `command` is on PATH. */
export async function hasCommand(command: string): Promise<boolean> {
  return run('sh', ['-c', `command -v ${command}`]).then(
    () => true,
    () => false,
  );
}
