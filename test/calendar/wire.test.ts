import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderParagraphs, sanitizeContent, sanitizeText } from '../../src/calendar/common/html.ts';
import { imageExtension } from '../../src/calendar/common/images.ts';
import { archiveLinks, linkPairs, sentArguments, totalPages } from '../../src/calendar/common/pagination.ts';
import { globalId, parseIdList, parseList, parsePositiveInt, parseWpBoolean, permalinks } from '../../src/calendar/common/wire.ts';

describe('wire primitives', () => {
  it('parses WordPress booleans and nothing else', () => {
    for (const yes of [true, 1, 'true', 'TRUE', '1']) assert.equal(parseWpBoolean(yes), true);
    for (const no of [false, 0, 'false', 'False', '0']) assert.equal(parseWpBoolean(no), false);
    for (const bad of ['', 'yes', 'on', 2, null, undefined, []]) assert.equal(parseWpBoolean(bad), undefined);
  });

  it('splits lists from CSV strings and arrays', () => {
    assert.deepEqual(parseList(['1, 2', ' 3 ', '']), ['1', '2', '3']);
    assert.deepEqual(parseList('a,,b'), ['a', 'b']);
    assert.deepEqual(parseIdList(['23', '89,23'], 'include'), [23, 89]);
    assert.throws(() => parseIdList(['foo-bar,23,89'], 'include'), /include/);
    assert.deepEqual(
      [parsePositiveInt('0'), parsePositiveInt('-1'), parsePositiveInt('1.5'), parsePositiveInt(' 7 '), parsePositiveInt('2147483648')],
      [undefined, undefined, undefined, 7, undefined],
    );
  });

  it('builds global ids and permalinks like the reference', () => {
    assert.equal(globalId('http://site.test:8080', 12), 'site.test?id=12');
    assert.equal(globalId('https://example.com/blog', 12), 'example.com/blog?id=12');
    assert.equal(permalinks.event('http://s.test', 'event-01'), 'http://s.test/event/event-01/');
    assert.equal(permalinks.category('http://s.test', ['parent'], 'child'), 'http://s.test/events/category/parent/child/');
  });
});

describe('archive links', () => {
  it('puts page first in rest_url and last in next/previous links, encoded like URLSearchParams', () => {
    const pairs: [string, string][] = [
      ['per_page', '2'],
      ['start_date', '2024-05-09 00:00:00'],
    ];
    const links = archiveLinks('http://s.test/events/', pairs, 2, 3);
    assert.equal(links.rest_url, 'http://s.test/events/?page=2&per_page=2&start_date=2024-05-09+00%3A00%3A00');
    assert.equal(links.next_rest_url, 'http://s.test/events/?per_page=2&start_date=2024-05-09+00%3A00%3A00&page=3');
    assert.equal(links.previous_rest_url, 'http://s.test/events/?per_page=2&start_date=2024-05-09+00%3A00%3A00');
    assert.deepEqual(Object.keys(archiveLinks('http://s.test/events/', [], 1, 1)), ['rest_url']);
    assert.equal(totalPages(0, 10), 0);
    assert.equal(totalPages(11, 10), 2);
  });

  it('repeats the echoed arguments, then every other one sent in its order with its validated value, never page or password', () => {
    const sent = sentArguments('/calendar/events/v1/events?_fields=id&page=2&per_page=5&venue%5B0%5D=3&venue[1]=4&x[a][b]=1&y=&password=p');
    assert.deepEqual(sent, ['_fields', 'page', 'per_page', 'venue', 'x', 'y', 'password']);
    assert.deepEqual(sentArguments('/calendar/events/v1/events'), []);
    const query = {
      page: 2,
      per_page: 5,
      _fields: ['id', 'title'],
      venue: ['3', '4'],
      x: { a: { b: '1' } },
      y: '',
      password: 'p',
      hide_empty: true,
    };
    assert.deepEqual(linkPairs([['per_page', '5']], query, sent), [
      ['per_page', '5'],
      ['_fields', 'id,title'],
      ['venue', '3,4'],
      ['x[a][b]', '1'],
      ['y', ''],
    ]);
    assert.deepEqual(linkPairs([], query, []), [], 'a default is not an argument sent');
  });
});

describe('content', () => {
  it('sanitizes HTML with an allowlist and wraps paragraphs', () => {
    assert.equal(
      sanitizeContent('<p onclick="x()">Hi</p><script>alert(1)</script><a href="javascript:alert(1)">x</a>'),
      '<p>Hi</p><a>x</a>',
    );
    assert.equal(renderParagraphs('Event 01 description'), '<p>Event 01 description</p>');
    assert.equal(renderParagraphs('one\n\ntwo\nthree'), '<p>one</p>\n<p>two<br />\nthree</p>');
    assert.equal(renderParagraphs('<p>already</p>'), '<p>already</p>');
    assert.equal(sanitizeText('<b>Bold</b> & <img src=x onerror=alert(1)>'), 'Bold &amp;');
  });

  it('takes the image extension from the URL path', () => {
    assert.equal(imageExtension('https://cdn.test/a/Photo.JPG?x=1'), 'jpg');
    assert.equal(imageExtension('https://cdn.test/a/photo'), '');
  });
});
