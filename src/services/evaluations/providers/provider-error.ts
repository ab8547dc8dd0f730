/**
 * A provider call that failed (network, timeout, HTTP error, missing credentials). Its message is
 * recorded on the row's call, so it never carries a secret: every text built from a provider's
 * answer goes through `redact` first.
 */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'ProviderError';
  }
}

/** Replaces every occurrence of each secret (at least 4 characters long) in `text`. */
export function redact(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 4) out = out.split(secret).join('[redacted]');
  return out;
}
