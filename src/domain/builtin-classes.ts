import { Ajv } from 'ajv';
import { ObjectInvalidRequestError } from '../errors/object-errors.js';
import { isJsonObject, isLosslessNumber, toPlainJson, type JsonObject, type JsonValue } from './json-value.js';
import { detectObjectClasses, type ObjectClasses } from './object-classes.js';

/**
 * Builtin object classes (docs/spec/objects.md §2.4): `/obj/create` may name one in
 * `builtin_object_class`, and the server then stores the value in that class's shape.
 */

/** Every registry class derives from BaseObject except this one, which is stored as a Model (§2.4). */
const MODEL_CLASSES = new Set(['LLMStructuredCompletionModel']);

/** The registry (newest). AgentDashboard is in the 0.54 Python client's registry too. */
const REGISTRY = new Set([
  'Leaderboard',
  'AlertSpec',
  'AnnotationSpec',
  'Provider',
  'ProviderModel',
  'SavedView',
  'ComparisonView',
  'LLMStructuredCompletionModel',
  'ChartConfig',
  'AgentDashboard',
]);

export interface ProcessedValue extends ObjectClasses {
  val: JsonValue;
}

/**
 * Applies §2.4 to a request value: without a class the value is kept (its classes detected per
 * §2.2); with one, the value is checked and filled in. Throws InvalidRequestError (400).
 */
export function processObjectValue(val: JsonValue, className: string | null): ProcessedValue {
  if (className === null)
    return { val, ...(detectObjectClasses(val) ?? { base_object_class: null, leaf_object_class: null }) };
  if (!isJsonObject(val))
    throw new ObjectInvalidRequestError('object_class cannot be provided for non-dict objects', 'ValueError');
  const detected = detectObjectClasses(val);
  if (detected !== null) {
    if (detected.leaf_object_class !== className) {
      throw new ObjectInvalidRequestError(
        `object_class must match val's defined object class: ${String(detected.leaf_object_class)} != ${className}`,
        'ValueError',
      );
    }
    return { val, ...detected };
  }
  if (!REGISTRY.has(className)) throw new ObjectInvalidRequestError(`Unknown object class: ${className}`, 'ValueError');
  const fields = className === 'AnnotationSpec' ? annotationSpecFields(val) : { ...val };
  const bases = MODEL_CLASSES.has(className) ? ['Model', 'Object', 'BaseModel'] : ['BaseObject', 'BaseModel'];
  const stored: JsonObject = {
    ...fields,
    _type: className,
    name: optionalString(val, 'name'),
    description: optionalString(val, 'description'),
    _class_name: className,
    _bases: bases,
  };
  return { val: stored, ...detectObjectClasses(stored)! };
}

function optionalString(val: JsonObject, field: string): string | null {
  const value = val[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string')
    throw new ObjectInvalidRequestError(`Invalid ${field}: input should be a valid string`, 'ValueError');
  return value;
}

/** Pydantic's lax booleans, which the reference applies to builtin class fields. */
function laxBool(value: JsonValue, field: string): boolean {
  if (typeof value === 'boolean') return value;
  const text = isLosslessNumber(value) ? value.value : typeof value === 'string' ? value.toLowerCase() : null;
  if (text !== null && ['1', 'true', 't', 'yes', 'y', 'on'].includes(text)) return true;
  if (text !== null && ['0', 'false', 'f', 'no', 'n', 'off'].includes(text)) return false;
  throw new ObjectInvalidRequestError(`Invalid ${field}: input should be a valid boolean`, 'ValueError');
}

const schemaChecker = new Ajv({ strict: false, validateSchema: true });

/**
 * AnnotationSpec (our choice of §2.4: the one class validated in full): `field_schema` a JSON
 * Schema object (default `{}`), `unique_among_creators` boolean (default false), `op_scope`
 * string list or null. Unknown fields are dropped, as the reference's model does.
 */
function annotationSpecFields(val: JsonObject): JsonObject {
  const fieldSchema = val.field_schema ?? {};
  if (!isJsonObject(fieldSchema))
    throw new ObjectInvalidRequestError('Invalid field_schema: input should be a valid dictionary', 'ValueError');
  if (!schemaChecker.validateSchema(toPlainJson(fieldSchema) as object)) {
    throw new ObjectInvalidRequestError(
      `Invalid field_schema: not a valid JSON Schema (${schemaChecker.errorsText(schemaChecker.errors)})`,
      'ValueError',
    );
  }
  const unique =
    val.unique_among_creators === undefined ? false : laxBool(val.unique_among_creators, 'unique_among_creators');
  const opScope = val.op_scope ?? null;
  if (opScope !== null && (!Array.isArray(opScope) || opScope.some((item) => typeof item !== 'string'))) {
    throw new ObjectInvalidRequestError('Invalid op_scope: input should be a list of strings or null', 'ValueError');
  }
  return { field_schema: fieldSchema, unique_among_creators: unique, op_scope: opScope };
}
