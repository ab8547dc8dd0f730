import { ConflictError, InvalidFieldError, InvalidRequestError, NotFoundError } from './app-error.js';

/**
 * Errors of the objects API that carry an `error_type` (docs/spec/objects.md §0.1: newest servers name
 * the error class in the body, and clients branch on it, e.g. a 404 with `deleted_at` is final).
 */

/** 404 for a missing object, version or file. */
export class ObjectNotFoundError extends NotFoundError {
  constructor(message: string) {
    super(message, { error_type: 'NotFoundError' });
  }
}

/** 404 for a version that was deleted; `deleted_at` tells clients not to retry (§3.2). */
export class ObjectDeletedError extends NotFoundError {
  constructor(message: string, deletedAt: string) {
    super(message, { error_type: 'ObjectDeletedError', deleted_at: deletedAt });
  }
}

/** 409 when a client-computed digest differs from ours (§1.7); nothing was written. */
export class DigestMismatchError extends ConflictError {
  constructor(label: string, expected: string, actual: string) {
    super(`Client ${label} digest ${expected} != server digest ${actual}`, { error_type: 'DigestMismatchError' });
  }
}

/** 400 for business-rule violations of this API (builtin classes, tag and alias names, …). */
export class ObjectInvalidRequestError extends InvalidRequestError {
  constructor(message: string, errorType = 'InvalidRequest') {
    super(message, { error_type: errorType });
  }
}

/** 400 when an object id is already bound to another base class (§2.5). */
export class ObjectNameTypeCollisionError extends InvalidRequestError {
  constructor(details: {
    object_id: string;
    kind: string;
    new_base_object_class: string | null;
    existing_base_object_classes: Array<string | null>;
    object_name: string | null;
  }) {
    const describe = (cls: string | null): string => (cls === null ? 'a generic (untyped) object' : `a ${cls}`);
    const existing = [...new Set(details.existing_base_object_classes.map(describe))].join(' or ');
    super(
      `Cannot publish '${details.object_id}' as ${describe(details.new_base_object_class)}: that name is already used by ${existing} in this project. ` +
        'Versions of one object cannot have different types; publish this object under a different name.',
      { error_type: 'ObjectNameTypeCollision', ...details },
    );
  }
}

/** 422 with a reason for an object id that is empty or has illegal characters (§3.1). */
export class ObjectIdFieldError extends InvalidFieldError {
  constructor(message: string) {
    super(message);
    this.extra.error_type = 'InvalidFieldError';
  }
}
