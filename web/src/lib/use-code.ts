/**
 * The "Use" tab's code: how to fetch one call from the official Python and TypeScript `weave`
 * clients and with cURL from `/call/read`, for a Heddle at `origin`. Each block runs as printed once
 * the set-up lines are run with a real key (test/ui/views.test.ts runs them).
 */

export interface UseSnippet {
  id: 'setup' | 'python' | 'typescript' | 'curl';
  title: string;
  /** How to run it, shown above the block. */
  note: string;
  language: 'sh' | 'python' | 'javascript';
  code: string;
}

/** What the set-up block asks the user to replace. */
export const KEY_PLACEHOLDER = '<your API key>';

/** A string literal both Python and JavaScript read back as `s` (JSON's escapes are valid in both). */
export const lit = (s: string) => JSON.stringify(s);

/** A single-quoted shell word. */
export const shellWord = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The set-up block both the Use tab and the export dialog start with: the clients' variables for `base`. */
export function setUpSnippet(base: string): UseSnippet {
  return {
    id: 'setup',
    title: 'Set-up',
    note: 'Point the clients at this server (a key from Settings → API keys).',
    language: 'sh',
    code: [
      `export WANDB_API_KEY=${shellWord(KEY_PLACEHOLDER)}`,
      `export WF_TRACE_SERVER_URL=${shellWord(base)}`,
      `export WANDB_BASE_URL=${shellWord(base)}`,
    ].join('\n'),
  };
}

export function callUseSnippets(projectId: string, callId: string, origin: string): UseSnippet[] {
  const base = origin.replace(/\/+$/, '');
  const body = JSON.stringify({ project_id: projectId, id: callId });
  return [
    setUpSnippet(base),
    {
      id: 'python',
      title: 'Python',
      note: 'pip install weave; save as get_call.py and run python get_call.py',
      language: 'python',
      code: [
        'import weave',
        '',
        `client = weave.init(${lit(projectId)})`,
        `call = client.get_call(${lit(callId)})`,
        'print(call.op_name)',
        'print(call.inputs)',
        'print(call.output)',
      ].join('\n'),
    },
    {
      id: 'typescript',
      title: 'TypeScript',
      note: 'npm install weave; save as get-call.mjs and run node get-call.mjs',
      language: 'javascript',
      code: [
        '// get-call.mjs',
        "import * as weave from 'weave';",
        '',
        `const client = await weave.init(${lit(projectId)});`,
        `const call = await client.getCall(${lit(callId)});`,
        'console.log(call.op_name);',
        'console.log(JSON.stringify(call.inputs));',
        'console.log(JSON.stringify(call.output));',
      ].join('\n'),
    },
    {
      id: 'curl',
      title: 'cURL',
      note: 'The call as JSON, from POST /call/read.',
      language: 'sh',
      code: [
        `curl -s -u "api:$WANDB_API_KEY" -H 'content-type: application/json' \\`,
        `  "$WANDB_BASE_URL/call/read" -d ${shellWord(body)}`,
      ].join('\n'),
    },
  ];
}
