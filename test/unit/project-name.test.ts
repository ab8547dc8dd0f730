import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isValidName } from '../../src/domain/project-name.js';
import { parseProjectId } from '../../src/services/project-access.js';

/** Issue 17: one name rule for the REST `project_id` and GraphQL's entity and project names. */

test('names of the official clients pass', () => {
  for (const name of ['acme', 'demo', 'my-team', 'my_project.v2', 'A1', 'art-demo', 'x'.repeat(128), '.hidden', 'a..b'])
    assert.ok(isValidName(name), name);
  assert.deepEqual(parseProjectId('my-team/my_project.v2'), { entity: 'my-team', project: 'my_project.v2' });
});

test('whitespace, control characters, separators, dot-only and over-long names are refused', () => {
  for (const name of [
    '',
    ' x',
    'x ',
    'a b',
    '.',
    '..',
    'a\u0000b',
    'a/b',
    'a\\b',
    'a?b',
    'a#b',
    'a%2F',
    'é',
    'x'.repeat(129),
  ])
    assert.ok(!isValidName(name), JSON.stringify(name));
  for (const id of ['A/ x', 'A/..', 'acme/a\u0000b', `acme/${'x'.repeat(100_000)}`]) {
    assert.throws(
      () => parseProjectId(id),
      (error: Error) => /Invalid project_id/.test(error.message) && error.message.length < 400,
    );
  }
});
