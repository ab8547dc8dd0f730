import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILTIN_KINDS, luhnValid, redactJsonText, rulesFor } from '../../src/domain/redaction.js';

const ALL = rulesFor([...BUILTIN_KINDS, 'custom'], new Map([['ticket', /TCK-\d+/]]));

function redact(value: string): string {
  return JSON.parse(redactJsonText(JSON.stringify(value), ALL, {})) as string;
}

test('each kind is replaced inside strings', () => {
  for (const [input, output] of [
    ['write to a.b+c@mail.example.co.uk today', 'write to [redacted:email] today'],
    ['call +44 020 7946 0958', 'call +44 020 7946 0958'],
    [
      'call +1 (415) 555-0134 or 415.555.0134 or 4155550134',
      'call [redacted:phone] or [redacted:phone] or [redacted:phone]',
    ],
    ['ssn 078-05-1120', 'ssn [redacted:ssn]'],
    ['card 4111-1111-1111-1111 and 5500 0000 0000 0004', 'card [redacted:credit_card] and [redacted:credit_card]'],
    ['not a card 4111111111111112', 'not a card 4111111111111112'],
    ['from 10.0.0.1 or 2001:db8::8a2e:370:7334 or ::1', 'from [redacted:ip] or [redacted:ip] or [redacted:ip]'],
    ['ticket TCK-991', 'ticket [redacted:ticket]'],
  ] as const)
    assert.equal(redact(input), output, input);
});

test('what looks alike but is not personal data is kept', () => {
  for (const keep of [
    '2026-01-15T10:20:30.123Z',
    '123e4567-e89b-12d3-a456-426614174000',
    'version 3.11.4',
    'weave:///acme/demo/op/chat:abc123',
    'ratio 0.75, 1234 tokens',
    'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  ])
    assert.equal(redact(keep), keep, keep);
});

test('the JSON text keeps its shape, numbers are left alone, and counts are kept', () => {
  const counts = {};
  const text = JSON.stringify({ 'a@b.io': ['x a@b.io', 4155550134], n: { deep: '078-05-1120' } });
  const out = redactJsonText(text, ALL, counts);
  assert.deepEqual(JSON.parse(out), {
    '[redacted:email]': ['x [redacted:email]', 4155550134],
    n: { deep: '[redacted:ssn]' },
  });
  assert.deepEqual(counts, { email: 2, ssn: 1 });
  assert.equal(redactJsonText(text, [], {}), text);
});

test('Luhn', () => {
  assert.equal(luhnValid('4111 1111 1111 1111'), true);
  assert.equal(luhnValid('4111 1111 1111 1112'), false);
  assert.equal(luhnValid('0'), false);
});
