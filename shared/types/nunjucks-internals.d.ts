/**
 * The parts of Nunjucks the template compiler imports by path (shared/domain/runs/caller/
 * template-compile.ts). @types/nunjucks declares the package's index only; these are the modules
 * its own Environment compiles with.
 */

declare module 'nunjucks/src/nodes.js' {
  export interface Node {
    lineno: number;
    colno: number;
    iterFields(fn: (value: unknown, field: string) => void): void;
  }
  type NodeClass = new (...args: any[]) => any;
  const nodes: Record<'Node' | 'NodeList' | 'Output' | 'TemplateData' | 'Filter' | 'Symbol', NodeClass>;
  export default nodes;
}

declare module 'nunjucks/src/parser.js' {
  import type { Node } from 'nunjucks/src/nodes.js';
  const parser: { parse(src: string, extensions: unknown[], opts: Record<string, unknown>): Node };
  export default parser;
}

declare module 'nunjucks/src/compiler.js' {
  import type { Node } from 'nunjucks/src/nodes.js';
  const compiler: {
    Compiler: new (
      name: string,
      throwOnUndefined: boolean,
    ) => {
      compile(node: Node): void;
      getCode(): string;
    };
  };
  export default compiler;
}
