import { useEffect, useState } from 'react';
import { fetchFile } from '../api/objects.js';
import { sniffImageType, type FileValue } from '../lib/content.js';

/** A stored file referenced from a value. Images load only after a click, as raster blobs. */
export function FileValueView({ file, projectId }: { file: FileValue; projectId: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => () => void (url && URL.revokeObjectURL(url)), [url]);

  const load = async () => {
    if (!file.main) return;
    setBusy(true);
    setError(null);
    try {
      const bytes = await fetchFile(projectId, file.main.digest);
      const type = sniffImageType(bytes);
      if (!type) setError('Not a PNG, JPEG, GIF or WebP image; not shown.');
      else setUrl(URL.createObjectURL(new Blob([bytes as BlobPart], { type })));
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <span className="file-value">
      <span className="chip">{file.isImage ? 'Image' : 'File'}</span> <span className="muted">{file.typeName}</span>{' '}
      {file.files.map((f) => (
        <span key={f.name} className="mono small">
          {f.name}{' '}
        </span>
      ))}
      {file.isImage && file.main && !url && (
        <button type="button" onClick={load} disabled={busy}>
          {busy ? 'Loading…' : 'Show image'}
        </button>
      )}
      {error && (
        <span role="alert" className="error-text">
          {' '}
          {error}
        </span>
      )}
      {url && (
        <span className="image-box">
          <img src={url} alt={`${file.typeName} ${file.main?.name ?? ''}`} />
        </span>
      )}
    </span>
  );
}
