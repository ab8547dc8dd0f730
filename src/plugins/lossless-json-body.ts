import type { FastifyInstance } from 'fastify';
import { parseLosslessJson } from '../domain/json-value.js';
import { RequestValidationError } from '../errors/app-error.js';

/**
 * Makes the routes of this (encapsulated) plugin context parse JSON bodies keeping every number's
 * literal text: object and table digests hash `1` and `1.0` differently and keep big integers
 * exact (docs/spec/objects.md §1.2). Only the routes that hash values use it; every other route keeps
 * Fastify's faster native parser. Call it inside a plugin registered without fastify-plugin.
 */
export function useLosslessJsonBodies(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(new RequestValidationError([{ loc: ['body'], msg: 'Field required', type: 'missing' }]), undefined);
      return;
    }
    try {
      done(null, parseLosslessJson(text));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}
