import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csvCell, csvRecord } from '../../src/domain/csv.js';

test('csvCell quotes per RFC 4180 and neutralises formulas', () => {
  const cases: Array<[Parameters<typeof csvCell>[0], string]> = [
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-1', "'-1"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['=HYPERLINK("u","x")', `"'=HYPERLINK(""u"",""x"")"`],
    ['a=b', 'a=b'],
    [-1.5, '-1.5'],
    [0, '0'],
    [Number.NaN, ''],
    [null, ''],
    [undefined, ''],
    ['', ''],
  ];
  for (const [input, expected] of cases) assert.equal(csvCell(input), expected, JSON.stringify(input));
});

test('csvRecord joins cells with commas and ends with CRLF', () => {
  assert.equal(csvRecord(['a', 1, null, 'x,y']), 'a,1,,"x,y"\r\n');
});
