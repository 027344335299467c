import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { junitXml, type JunitSuite } from '../../shared/domain/runs/junit-xml.js';
import { parseXml, type XmlNode } from '../support/xml.js';

/** XML 1.0's Char production, code point by code point (written apart from the writer's pattern). */
const isXmlChar = (cp: number) =>
  cp === 0x9 ||
  cp === 0xa ||
  cp === 0xd ||
  (cp >= 0x20 && cp <= 0xd7ff) ||
  (cp >= 0xe000 && cp <= 0xfffd) ||
  (cp >= 0x10000 && cp <= 0x10ffff);
const carried = (text: string) => Array.from(text, (ch) => (isXmlChar(ch.codePointAt(0)!) ? ch : '\uFFFD')).join('');

const child = (n: XmlNode, name: string) => n.children.filter((c) => c.name === name);

describe('junitXml', () => {
  it('writes exact counts at both levels, a self-closed passing case, and escapes markup in every value', () => {
    const evil = `<b>Tom & "Jerry"</b> it's ]]>`;
    const xml = junitXml(evil, [
      {
        name: 'tone',
        cases: [
          { classname: evil, name: 'passes' },
          { classname: 'c', name: 'fails', failure: { message: `score 0.3 < 0.6: ${evil}`, text: evil } },
          { classname: 'c', name: 'errs', error: { message: 'scoring failed', text: 'judge timed out' } },
        ],
      },
      { name: 'empty', cases: [] },
    ]);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites ')).toBe(true);
    expect(xml).toContain(
      '<testcase classname="&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt; it&apos;s ]]&gt;" name="passes"/>',
    );
    const root = parseXml(xml);
    expect(root.name).toBe('testsuites');
    expect(root.attributes).toEqual({ name: evil, tests: '3', failures: '1', errors: '1' });
    const [tone, empty] = child(root, 'testsuite');
    expect(tone!.attributes).toEqual({ name: 'tone', tests: '3', failures: '1', errors: '1' });
    expect(empty!.attributes).toEqual({ name: 'empty', tests: '0', failures: '0', errors: '0' });
    const [passes, fails, errs] = child(tone!, 'testcase');
    expect(passes!.children).toEqual([]);
    expect(child(fails!, 'failure')[0]).toMatchObject({
      attributes: { message: `score 0.3 < 0.6: ${evil}` },
      text: evil,
    });
    expect(child(errs!, 'error')[0]).toMatchObject({
      attributes: { message: 'scoring failed' },
      text: 'judge timed out',
    });
  });

  it('carries any text: what XML can hold comes back as written, anything else (controls, lone surrogates, U+FFFE) as U+FFFD', () => {
    const anyText = fc
      .array(
        fc.oneof(
          fc.integer({ min: 0, max: 0x7f }),
          fc.integer({ min: 0xd700, max: 0xe100 }),
          fc.integer({ min: 0xfff0, max: 0x10010 }),
          fc.integer({ min: 0, max: 0x10ffff }),
        ),
        { maxLength: 30 },
      )
      .map((cps) => cps.map((cp) => String.fromCodePoint(cp)).join(''));
    fc.assert(
      fc.property(anyText, anyText, anyText, (name, message, text) => {
        const suites: JunitSuite[] = [{ name, cases: [{ classname: name, name: text, failure: { message, text } }] }];
        const xml = junitXml(name, suites);
        for (const ch of xml) expect(isXmlChar(ch.codePointAt(0)!), `U+${ch.codePointAt(0)!.toString(16)}`).toBe(true);
        const root = parseXml(xml);
        const suite = child(root, 'testsuite')[0]!;
        const testcase = child(suite, 'testcase')[0]!;
        const failure = child(testcase, 'failure')[0]!;
        expect(root.attributes.name).toBe(carried(name));
        expect(suite.attributes.name).toBe(carried(name));
        expect(testcase.attributes).toEqual({ classname: carried(name), name: carried(text) });
        expect(failure.attributes.message).toBe(carried(message));
        expect(failure.text).toBe(carried(text));
      }),
      { numRuns: 500 },
    );
  });
});
