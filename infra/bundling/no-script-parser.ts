/**
 * What a function bundle gets for `jsep` and its two plugins (the `BUNDLING` alias of
 * infra/constructs/app-function.ts), with `jsonpath-plus` resolved to its ES module sources, which
 * import them, instead of its build, which holds them. jsonpath-plus parses script expressions
 * (`?(…)`, `(…)`) with jsep only to evaluate them, and the service runs every JSONPath with
 * `eval: false` (the output mapping, and the check of a connection's write), which refuses a
 * script expression where it meets one, before parsing it: the parser is a path a function never
 * takes, and about 12 KiB of every bundle that maps an answer. Its module registers the plugins
 * and operators at load, so this stands in for it there, and throws if it is ever asked to parse.
 * test/integration/flat-packages.test.ts checks the bundled JSONPath answers as the package does.
 */
function jsep(expression: string): never {
  throw new Error(`JSONPath script expressions are not evaluated (eval: false): ${expression}`);
}
jsep.plugins = { register: (..._plugins: unknown[]): void => undefined };
jsep.addUnaryOp = (_operator: string): void => undefined;
jsep.addLiteral = (_name: string, _value: unknown): void => undefined;

export default jsep;
