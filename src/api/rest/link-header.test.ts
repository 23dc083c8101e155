import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { linkHeader, paginate, parsePage } from './link-header.js';
import { RestError } from './rest-error.js';

describe('paginate', () => {
  const items = Array.from({ length: 450 }, (_, i) => i);

  it('cuts pages and counts them', () => {
    assert.deepEqual(paginate(items, 1, 200).pageItems, items.slice(0, 200));
    assert.deepEqual(paginate(items, 3, 200), { pageItems: items.slice(400), page: 3, lastPage: 3 });
    assert.equal(paginate(items.slice(0, 400), 2, 200).lastPage, 2);
  });

  it('answers a page past the end, and an empty list, with no items', () => {
    assert.deepEqual(paginate(items, 4, 200), { pageItems: [], page: 4, lastPage: 3 });
    assert.deepEqual(paginate([], 1, 200), { pageItems: [], page: 1, lastPage: 1 });
  });

  it('refuses a page or page size that is not a positive integer', () => {
    assert.throws(() => paginate(items, 0, 200), RangeError);
    assert.throws(() => paginate(items, 1.5, 200), RangeError);
    assert.throws(() => paginate(items, 1, 0), RangeError);
  });
});

describe('parsePage', () => {
  it('defaults to 1 and reads positive integers', () => {
    assert.equal(parsePage(undefined), 1);
    assert.equal(parsePage(''), 1);
    assert.equal(parsePage('1'), 1);
    assert.equal(parsePage('0'), 1); // the Java client's page builder sends 0 for the first page
    assert.equal(parsePage('007'), 7);
    assert.equal(parsePage('9007199254740991'), Number.MAX_SAFE_INTEGER);
  });

  it('refuses anything else with 422', () => {
    const cases: [unknown, string][] = [
      ['-1', "Invalid page '-1': page must be a positive integer"],
      ['1.5', "Invalid page '1.5': page must be a positive integer"],
      ['abc', "Invalid page 'abc': page must be a positive integer"],
      [' 2', "Invalid page ' 2': page must be a positive integer"],
      ['9007199254740992', "Invalid page '9007199254740992': page must be a positive integer"],
      [['1', '2'], 'Invalid page (given 2 times): page must be a positive integer'],
    ];
    for (const [value, title] of cases) {
      assert.throws(
        () => parsePage(value),
        (e: unknown) => e instanceof RestError && e.status === 422 && e.title === title,
        String(value),
      );
    }
  });
});

describe('linkHeader', () => {
  it('is absent when everything fits on one page', () => {
    assert.equal(linkHeader('/v2/applications.json', 1, 1), undefined);
    assert.equal(linkHeader('/v2/applications.json?page=5', 5, 1), undefined);
  });

  it('names next and last on the first page, in New Relic spelling', () => {
    assert.equal(
      linkHeader('https://apm.example.com/v2/applications.json', 1, 3),
      '<https://apm.example.com/v2/applications.json?page=2>;rel="next", <https://apm.example.com/v2/applications.json?page=3>;rel="last"',
    );
  });

  it('adds first and prev on later pages, and no next on the last', () => {
    assert.equal(
      linkHeader('/v2/applications.xml?page=3', 3, 3),
      '</v2/applications.xml?page=3>;rel="last", </v2/applications.xml?page=1>;rel="first", </v2/applications.xml?page=2>;rel="prev"',
    );
  });

  it('points prev of a page past the end at the last page', () => {
    assert.equal(
      linkHeader('/v2/a.json?page=9', 9, 3),
      '</v2/a.json?page=3>;rel="last", </v2/a.json?page=1>;rel="first", </v2/a.json?page=3>;rel="prev"',
    );
  });

  it('keeps the other parameters as sent, page in its place, and drops repeated pages and fragments', () => {
    assert.equal(
      linkHeader('/v2/applications.json?filter[name]=checkout+web&page=1&filter%5Blanguage%5D=java&page=7#top', 1, 2),
      '</v2/applications.json?filter[name]=checkout+web&page=2&filter%5Blanguage%5D=java>;rel="next", ' +
        '</v2/applications.json?filter[name]=checkout+web&page=2&filter%5Blanguage%5D=java>;rel="last"',
    );
    assert.equal(linkHeader('/v2/a.json?pages=x&p%61ge=4', 4, 5)?.split(', ')[0], '</v2/a.json?pages=x&page=5>;rel="next"');
  });

  it('encodes what Link parsers split on or cannot carry', () => {
    assert.equal(
      linkHeader('/v2/applications.json?filter[ids]=1,2;3&x=<"é">&bad=%zz', 1, 2)?.split(', ')[0],
      '</v2/applications.json?filter[ids]=1%2C2%3B3&x=%3C%22%C3%A9%22%3E&bad=%25zz&page=2>;rel="next"',
    );
  });
});
