import { request } from './client.js';
import { exportBody, exportFileName, type ExportFormat, type ViewRequest } from '../lib/export-code.js';

/**
 * Downloads `/calls/export` of a view as a file: fetched with the session (a plain link cannot
 * POST a body), then handed to the browser as a download.
 */
export async function downloadExport(view: ViewRequest, format: ExportFormat): Promise<void> {
  const res = await request('/calls/export', {
    body: exportBody(view, format),
    accept: format === 'csv' ? 'text/csv' : 'application/jsonl',
  });
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  try {
    const link = document.createElement('a');
    link.href = url;
    link.download = exportFileName(view.project_id, format);
    document.body.append(link);
    link.click();
    link.remove();
  } finally {
    // the download has started from the object URL; release it after this turn
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}
