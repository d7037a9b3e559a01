import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { escapeXml, parseXml, XmlError, type XmlElement } from '../../src/platform/xml/xml.ts';

const refused = (document: string, message: RegExp) =>
  assert.throws(
    () => parseXml(document),
    (error: unknown) => {
      assert.ok(error instanceof XmlError, `an XmlError, not ${String(error)}`);
      assert.match(error.message, message);
      return true;
    },
  );

describe('parseXml', () => {
  it('resolves namespaces, decodes references and keeps text and CDATA in order', () => {
    const root = parseXml(
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- a comment --><s:E xmlns:s="urn:s" xmlns="urn:d" a="1&amp;2" xml:lang="it" s:b="&#x41;">' +
        '<?pi ignored?><s:B>x&lt;&#65;<![CDATA[<y>&amp;]]>z</s:B><C/></s:E>\n',
    );
    assert.equal(root.namespace, 'urn:s');
    assert.equal(root.localName, 'E');
    assert.equal(root.qualifiedName, 's:E');
    assert.deepEqual(root.attributes, [
      { namespace: '', localName: 'a', value: '1&2' },
      { namespace: 'http://www.w3.org/XML/1998/namespace', localName: 'lang', value: 'it' },
      { namespace: 'urn:s', localName: 'b', value: 'A' },
    ]);
    const [b, c] = root.children;
    assert.deepEqual([b?.namespace, b?.localName, b?.text], ['urn:s', 'B', 'x<A<y>&amp;z']);
    assert.deepEqual([c?.namespace, c?.localName, c?.children, c?.text], ['urn:d', 'C', [], '']);
  });

  it('refuses DTDs and entity declarations before parsing, wherever they are', () => {
    refused('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>', /DTDs and entity declarations are not accepted/);
    refused('<a/><!ENTITY % remote SYSTEM "http://127.0.0.1:9/x">', /DTDs/);
    refused('<a><![CDATA[<!DOCTYPE a>]]></a>', /DTDs/);
  });

  it('refuses what is not well-formed, saying where', () => {
    const cases: [string, RegExp][] = [
      ['<a>&xxe;</a>', /^The body is not well-formed XML: undefined entity \(line 1, column 8\)\.$/],
      ['<a>&#0;</a>', /malformed character entity/],
      ['<a>&#xFFFE;</a>', /malformed character entity/],
      ['<q:a/>', /unbound namespace prefix/],
      ['<a q:x="1"/>', /unbound namespace prefix/],
      ['<a xmlns:p="urn:x"><b xmlns:p=""/></a>', /undefine prefix/],
      ['<a:b:c xmlns:a="u"/>', /malformed name/],
      ['<a/>junk', /text data outside of root node/],
      ['<a/><b/>', /only one root/],
      ['', /must contain a root element/],
      ['  ', /must contain a root element/],
      ['<a><b></a>', /unexpected close tag/],
      ['<a', /must contain a root element/],
      ['<a b="1" b="2"/>', /duplicate attribute/],
      ['<a b="<"/>', /disallowed character/],
      // Read as XML 1.0 whatever the declaration: 1.1 allows references to control characters and undeclaring a prefix.
      ['<?xml version="1.1"?><a>&#x1b;</a>', /malformed character entity/],
      ['<?xml version="1.1"?><a xmlns:p="urn:x"><b xmlns:p=""/></a>', /undefine prefix/],
    ];
    for (const [document, message] of cases) refused(document, message);
  });

  it('names an "&" that begins no reference, where it is, in text or in an attribute', () => {
    const stray = (line: number, column: number) =>
      new RegExp(
        `^The body is not well-formed XML: an "&" begins no entity or character reference; write it as &amp; \\(line ${line}, column ${column}\\)\\.$`,
      );
    refused('<a>AT&T</a>', stray(1, 6));
    refused('<a>x &amp y</a>', stray(1, 6));
    refused('<a>x &</a>', stray(1, 6));
    refused('<a b="x & y"/>', stray(1, 9));
    refused('<a>\n  <b>x</b>\n  <c>AT&T</c>\n</a>', stray(3, 8));
    // In a comment, CDATA or a processing instruction an "&" is text; an error before the stray "&" is the one named.
    refused('<a><!-- & --><![CDATA[ & ]]><?p & ?>&amp; & </a>', stray(1, 43));
    refused('<a>x</b> & y', /unexpected close tag \(line 1, column 8\)/);
    assert.equal(parseXml('<a><!-- & --><![CDATA[ & ]]><?p & ?>&amp;&#38;</a>').text, ' & &&');
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z \n]{0,20}$/), fc.stringMatching(/^[a-z \n]{0,20}$/), (before, after) => {
        const document = `<a>${before}& ${after}</a>`;
        const upTo = `<a>${before}`.split('\n');
        refused(document, stray(upTo.length, (upTo.at(-1) as string).length + 1));
      }),
    );
  });

  it('refuses characters XML does not allow', () => {
    refused('<a>\u0000</a>', /a character that XML does not allow/);
    refused('<a b="\u0008"/>', /a character that XML does not allow/);
  });

  it('reads 256 nested elements and refuses 257', () => {
    const nested = (depth: number) => `${'<a>'.repeat(depth)}${'</a>'.repeat(depth)}`;
    let element: XmlElement | undefined = parseXml(nested(256));
    let depth = 0;
    for (; element !== undefined; element = element.children[0]) depth += 1;
    assert.equal(depth, 256);
    refused(nested(257), /nests elements more than 256 deep/);
    refused(`${'<a>'.repeat(256)}<a/>${'</a>'.repeat(256)}`, /nests elements more than 256 deep/);
  });

  it('reads back any tree of elements, attributes and text it is given', () => {
    const name = fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/);
    const text = fc.string({ unit: fc.constantFrom('a', ' ', '<', '>', '&', '"', "'", 'é', '\n', '\t', '\u{1F600}') });
    const element = (children: fc.Arbitrary<Node[]>) =>
      fc.record({
        name,
        namespace: fc.constantFrom('', 'urn:one', 'urn:two'),
        attributes: fc.uniqueArray(fc.tuple(name, text), { maxLength: 3, selector: ([key]) => key }),
        text,
        children,
      });
    const tree = fc.letrec<{ node: Node }>((tie) => ({
      node: element(fc.array(fc.oneof({ maxDepth: 4, depthIdentifier: 'tree' }, element(fc.constant([])), tie('node')), { maxLength: 3 })),
    })).node;
    fc.assert(
      fc.property(tree, (node) => {
        assert.deepEqual(shape(parseXml(serialize(node))), shapeOf(node));
      }),
    );
  });
});

interface Node {
  name: string;
  namespace: string;
  attributes: [string, string][];
  text: string;
  children: Node[];
}

/** A node written with a prefix per namespace, declared where it is used, its text before its children. */
function serialize(node: Node): string {
  const prefix = node.namespace === '' ? '' : `n${node.namespace.slice(-3)}:`;
  const declaration = node.namespace === '' ? '' : ` xmlns:${prefix.slice(0, -1)}="${node.namespace}"`;
  const attributes = node.attributes.map(([key, value]) => ` ${key}="${escapeXml(value)}"`).join('');
  const inner = escapeXml(node.text) + node.children.map(serialize).join('');
  return `<${prefix}${node.name}${declaration}${attributes}>${inner}</${prefix}${node.name}>`;
}

// Attribute values come back normalised (XML 1.0 §3.3.3): a tab or a line end is a space.
const shapeOf = (node: Node): unknown => ({
  namespace: node.namespace,
  localName: node.name,
  attributes: node.attributes.map(([localName, value]) => ({ namespace: '', localName, value: value.replace(/[\n\t]/g, ' ') })),
  text: node.text,
  children: node.children.map(shapeOf),
});

const shape = (element: XmlElement): unknown => ({
  namespace: element.namespace,
  localName: element.localName,
  attributes: element.attributes,
  text: element.text,
  children: element.children.map(shape),
});
