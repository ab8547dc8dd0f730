/**
 * Application errors. Every error a handler or service raises on purpose is an AppError;
 * the error plugin turns it into `{"reason": message, ...extra}` with its status.
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** 4xx errors are the caller's fault and are logged below error level. */
  get isUserError(): boolean {
    return this.status < 500;
  }
}

export class InvalidRequestError extends AppError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(400, message, extra);
  }
}

export class AuthError extends AppError {
  constructor(message = 'Authentication required') {
    super(401, message);
  }
}

export class ForbiddenError extends AppError {
  constructor(message: string) {
    super(403, message);
  }
}

export class NotFoundError extends AppError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(404, message, extra);
  }
}

export class ConflictError extends AppError {
  constructor(message: string, extra: Record<string, unknown> = {}) {
    super(409, message, extra);
  }
}

export class RequestTooLargeError extends AppError {
  constructor(message = 'Request too large') {
    super(413, message);
  }
}

/** A semantic field error the reference answers with 422 and a `reason` body (not a `detail` list). */
export class InvalidFieldError extends AppError {
  constructor(message: string) {
    super(422, message);
  }
}

export class StoreUnavailableError extends AppError {
  constructor(cause?: unknown) {
    super(502, 'Temporary backend error');
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * The node or its store is over a configured bound (in-flight requests, queued writes) or the
 * database is locked by another process: retry later. The error plugin adds `Retry-After`; the
 * official clients retry 5xx answers (docs/reliability-backpressure.md).
 */
export class OverloadedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds = 1,
  ) {
    super(503, message);
  }

  /** Shedding load is the bound working as configured: logged like a 4xx, not once per request at error level. */
  override get isUserError(): boolean {
    return true;
  }
}

/** 429 from the per-key rate limit, with the headers the error plugin sets (`Retry-After`, `X-RateLimit-*`). */
export class RateLimitedError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}

/**
 * A write failed because the disk holding the database is full (SQLITE_FULL, ENOSPC, PostgreSQL
 * 53100 disk_full). Nothing of the write was kept; the same write succeeds once space is freed.
 */
export class InsufficientStorageError extends AppError {
  constructor(cause: string) {
    super(507, `Insufficient storage: the database disk is full (${cause}); writes resume once space is freed`);
  }
}

export class QueryTimeoutError extends AppError {
  constructor() {
    super(504, 'Query timed out');
  }
}

/** A request that breaks its schema: 422 with a `detail` list (not a `reason`). */
export class RequestValidationError extends AppError {
  constructor(readonly detail: Array<{ loc: string[]; msg: string; type: string; input?: unknown }>) {
    super(422, detail[0]?.msg ?? 'Validation error');
  }
}
