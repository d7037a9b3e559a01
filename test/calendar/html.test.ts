import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { sanitizeContent, sanitizeText, textOfSanitized } from '../../src/calendar/common/html.ts';

// Reads turn stored (already sanitized) content into text without parsing it
// again: the result must be what sanitize-html itself would give.
describe('textOfSanitized', () => {
  const pieces = fc.constantFrom(
    '<p>',
    '</p>',
    '<a href="http://x/?a=1&b=2" title="a>b">',
    '</a>',
    '<br>',
    '<img src="http://i/x.png" alt="<>">',
    '<script>alert(1)</script>',
    '<style>p{}</style>',
    '<div onclick="x()">',
    '</div>',
    '<!-- c -->',
    '&amp;',
    '&lt;',
    '&gt;',
    '&nbsp;',
    '&eacute;',
    '&#39;',
    '"',
    "'",
    '<',
    '>',
    '&',
    '\n',
    ' ',
    'café',
    'a',
    '<b',
    '<<p>>',
    '</',
  );
  const html = fc.array(fc.oneof(pieces, fc.string()), { maxLength: 20 }).map((parts) => parts.join(''));

  it('equals sanitizeText on every sanitized value', () => {
    fc.assert(
      fc.property(html, (input) => {
        const stored = sanitizeContent(input);
        assert.equal(textOfSanitized(stored), sanitizeText(stored));
      }),
      { numRuns: 2000 },
    );
  });
});
