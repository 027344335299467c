/**
 * The JUnit XML writer: the one module that imports the XML writer (fast-xml-builder). Every name,
 * message and text is given to the writer as a value, never pasted into markup, so a case input
 * holding `<&"'` is escaped by the writer; a character XML 1.0 cannot carry (a control character,
 * a lone surrogate) is replaced by U+FFFD first, so the document stays well-formed for a CI server.
 */
import XMLBuilder from 'fast-xml-builder';

export interface JunitCase {
  classname: string;
  name: string;
  failure?: { message: string; text: string };
  error?: { message: string; text: string };
}

export interface JunitSuite {
  name: string;
  cases: JunitCase[];
}

const count = (cases: readonly JunitCase[], kind: 'failure' | 'error') => cases.filter((c) => c[kind]).length;

/** What XML 1.0 cannot hold (its Char production): C0 controls but tab, LF and CR; lone surrogates; U+FFFE and U+FFFF. */
const NOT_XML_CHAR = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** The text as XML can carry it: each character it cannot hold replaced by U+FFFD. */
export const xmlText = (text: string): string => text.replace(NOT_XML_CHAR, '\uFFFD');

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  textNodeName: '#text',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  processEntities: true,
});

type Attributes = Record<string, string>;
const attributes = (values: Attributes) =>
  Object.fromEntries(Object.entries(values).map(([k, v]) => [`@${k}`, xmlText(v)]));
const counts = (cases: readonly JunitCase[]) => ({
  tests: String(cases.length),
  failures: String(count(cases, 'failure')),
  errors: String(count(cases, 'error')),
});
const problem = (p: { message: string; text: string }) => ({
  ...attributes({ message: p.message }),
  '#text': xmlText(p.text),
});

/** `<testsuites>` of these suites, with exact tests/failures/errors counts at both levels. */
export function junitXml(name: string, suites: readonly JunitSuite[]): string {
  const all = suites.flatMap((s) => s.cases);
  const body = builder.build({
    testsuites: {
      ...attributes({ name, ...counts(all) }),
      testsuite: suites.map((suite) => ({
        ...attributes({ name: suite.name, ...counts(suite.cases) }),
        testcase: suite.cases.map((c) => ({
          ...attributes({ classname: c.classname, name: c.name }),
          ...(c.failure ? { failure: problem(c.failure) } : {}),
          ...(c.error ? { error: problem(c.error) } : {}),
        })),
      })),
    },
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n${body}`;
}
