/**
 * The traces page's export code: the filtered view as a file from the official Python client and
 * with cURL from `/calls/export`, for a Heddle at `origin`. Each block runs as printed once the
 * set-up lines are run with a real key (test/ui/views.test.ts runs them).
 */
import { lit, setUpSnippet, shellWord, type UseSnippet } from './use-code.js';

/** What `/calls/export` and the Python client's `get_calls` take of a view (the same shapes). */
export interface ViewRequest {
  project_id: string;
  filter: unknown;
  query: unknown;
  sort_by: unknown;
}

export type ExportFormat = 'csv' | 'jsonl';

/** The body `/calls/export` takes for `view` in `format`. */
export function exportBody(view: ViewRequest, format: ExportFormat) {
  return { ...view, format, include_feedback: true, include_costs: true };
}

export function exportFileName(projectId: string, format: ExportFormat): string {
  return `${projectId.replace(/[^\w.-]+/g, '-')}-calls.${format}`;
}

export function viewExportSnippets(view: ViewRequest, format: ExportFormat, origin: string): UseSnippet[] {
  const base = origin.replace(/\/+$/, '');
  const file = exportFileName(view.project_id, format);
  const python = (name: string, value: unknown) => `    ${name}=json.loads(${lit(JSON.stringify(value ?? null))}),`;
  return [
    setUpSnippet(base),
    {
      id: 'python',
      title: 'Python',
      note: 'pip install weave; save as export_calls.py and run python export_calls.py',
      language: 'python',
      code: [
        'import json',
        'import weave',
        '',
        `client = weave.init(${lit(view.project_id)})`,
        'calls = client.get_calls(',
        python('filter', view.filter),
        python('query', view.query),
        python('sort_by', view.sort_by),
        '    include_costs=True,',
        '    include_feedback=True,',
        ')',
        'count = 0',
        'with open("calls.jsonl", "w") as out:',
        '    for call in calls:',
        '        row = {"id": call.id, "op_name": call.op_name, "inputs": call.inputs, "output": call.output}',
        '        out.write(json.dumps(row, default=str) + "\\n")',
        '        count += 1',
        'print(f"wrote {count} calls to calls.jsonl")',
      ].join('\n'),
    },
    {
      id: 'curl',
      title: 'cURL',
      note: `The same file as the Download button, from POST /calls/export.`,
      language: 'sh',
      code: [
        `curl -sf -u "api:$WANDB_API_KEY" -H 'content-type: application/json' \\`,
        `  "$WANDB_BASE_URL/calls/export" -o ${shellWord(file)} \\`,
        `  -d ${shellWord(JSON.stringify(exportBody(view, format)))}`,
      ].join('\n'),
    },
  ];
}
