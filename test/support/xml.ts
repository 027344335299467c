import { expect } from 'vitest';

/** An element of a parsed document: decoded attribute values and text. */
export interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  text: string;
}

/**
 * Parses the document strictly enough to catch markup pasted from user text: every attribute
 * value quoted without a raw `<` or `"`, every `&` an entity, every tag closed in order, one root.
 * Attribute values and texts come back decoded.
 */
export function parseXml(xml: string): XmlNode {
  const decode = (s: string) => {
    expect(s, 'a bare & in the document').not.toMatch(/&(?!(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);)/);
    return s.replace(/&(amp|lt|gt|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (_, e: string) =>
      e === 'amp'
        ? '&'
        : e === 'lt'
          ? '<'
          : e === 'gt'
            ? '>'
            : e === 'quot'
              ? '"'
              : e === 'apos'
                ? "'"
                : String.fromCodePoint(e.startsWith('#x') ? Number.parseInt(e.slice(2), 16) : Number(e.slice(1))),
    );
  };
  const body = xml.replace(/^<\?xml [^>]*\?>\s*/, '');
  const stack: XmlNode[] = [{ name: '#document', attributes: {}, children: [], text: '' }];
  const token = /<\/([\w-]+)\s*>|<([\w-]+)((?:\s+[\w-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/gy;
  let m: RegExpExecArray | null;
  let at = 0;
  while (at < body.length) {
    token.lastIndex = at;
    m = token.exec(body);
    expect(m, `not well-formed at: ${body.slice(at, at + 60)}`).not.toBeNull();
    at = token.lastIndex;
    const [, close, open, attrs, selfClosing, text] = m!;
    const top = stack[stack.length - 1]!;
    if (close) {
      expect(top.name, 'mismatched closing tag').toBe(close);
      stack.pop();
    } else if (open) {
      const node: XmlNode = { name: open, attributes: {}, children: [], text: '' };
      for (const a of attrs!.matchAll(/([\w-]+)="([^"]*)"/g)) {
        expect(node.attributes, `attribute ${a[1]} twice`).not.toHaveProperty(a[1]!);
        node.attributes[a[1]!] = decode(a[2]!);
      }
      top.children.push(node);
      if (!selfClosing) stack.push(node);
    } else top.text += decode(text!);
  }
  expect(stack, 'unclosed elements').toHaveLength(1);
  expect(stack[0]!.children, 'one root element').toHaveLength(1);
  return stack[0]!.children[0]!;
}
