import { CALL_CSV_COLUMNS, callCsvValues } from '../domain/call-csv.js';
import { csvRecord } from '../domain/csv.js';
import type { CallsExportReq } from '../schemas/export.js';
import type { Caller } from './auth-service.js';
import type { CallQueryService } from './call-query-service.js';
import { parseProjectId } from './project-access.js';

/** What an export sends: its lines (pulled one at a time), their media type and a file name. */
export interface CallsExport {
  format: 'jsonl' | 'csv';
  contentType: string;
  filename: string;
  lines: AsyncIterable<string>;
}

/**
 * `/calls/export` and `heddle export` (docs/export.md): a project's calls with feedback and costs,
 * through the same compilation and store query as `/calls/stream_query`, so a filter means the same
 * in both. JSONL lines are exactly stream_query's; CSV flattens each of them into fixed columns.
 * Nothing is collected: each line is produced when the consumer asks for it.
 */
export class CallExportService {
  constructor(private readonly queries: CallQueryService) {}

  async callsExport(caller: Caller, req: CallsExportReq): Promise<CallsExport> {
    const { entity, project } = parseProjectId(req.project_id);
    const format = req.format ?? 'jsonl';
    const lines = await this.queries.callsQueryStream(caller, {
      project_id: req.project_id,
      filter: req.filter,
      query: req.query,
      sort_by: req.sort_by,
      include_feedback: req.include_feedback !== false,
      include_costs: req.include_costs !== false,
    });
    const filename = `${entity}-${project}-calls.${format}`;
    if (format === 'jsonl') return { format, contentType: 'application/jsonl', filename, lines };
    return { format, contentType: 'text/csv; charset=utf-8', filename, lines: toCsv(lines) };
  }
}

/**
 * The CSV records of stream_query lines, header first. The first call is read before the header
 * is produced, so a query that fails to start still fails before anything is sent.
 */
async function* toCsv(lines: AsyncIterable<string>): AsyncGenerator<string> {
  const iterator = lines[Symbol.asyncIterator]();
  try {
    const first = await iterator.next();
    yield csvRecord(CALL_CSV_COLUMNS);
    for (let next = first; !next.done; next = await iterator.next()) {
      yield csvRecord(callCsvValues(JSON.parse(next.value) as Record<string, unknown>));
    }
  } finally {
    await iterator.return?.();
  }
}
