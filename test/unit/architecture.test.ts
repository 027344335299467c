import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** Every module specifier a file imports or re-exports (static and dynamic). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers: string[] = [];
  for (const re of [
    /\b(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ]) {
    for (const m of text.matchAll(re)) specifiers.push(m[1]!);
  }
  return specifiers;
}

describe('dependencies', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  const imported = new Set(
    ['functions', 'shared', 'infra', 'cli'].flatMap((d) => sourceFiles(join(ROOT, d))).flatMap(importsOf),
  );
  const isImported = (dep: string) => [...imported].some((s) => s === dep || s.startsWith(`${dep}/`));

  it('every runtime dependency is imported by some file under functions/, shared/, infra/ or cli/', () => {
    const unused = Object.keys(pkg.dependencies).filter((dep) => !isImported(dep));
    expect(unused).toEqual([]);
  });

  it('the check recognises packages that are imported and rejects one that is not', () => {
    expect(isImported('@middy/core')).toBe(true);
    expect(isImported('@aws-sdk/lib-dynamodb')).toBe(true);
    expect(isImported('left-pad')).toBe(false);
  });
});

describe('AWS: the SDK, one client module per service, no signing of our own', () => {
  const runtimeFiles = ['functions', 'shared'].flatMap((d) => sourceFiles(join(ROOT, d)));
  const projectFiles = ['functions', 'shared', 'infra', 'bench', 'test', 'examples', 'console/src'].flatMap((d) =>
    sourceFiles(join(ROOT, d)),
  );
  /** The one module per service that may create its SDK client. */
  const CLIENT_MODULES: Record<string, string> = {
    DynamoDBClient: 'shared/db/client.ts',
    S3Client: 'shared/storage/s3.ts',
    SQSClient: 'shared/queue/sqs.ts',
    LambdaClient: 'shared/build/services.ts',
    ChimeSDKVoiceClient: 'shared/telephony/chime.ts',
  };
  const createdClients = (text: string) =>
    [...text.matchAll(/\bnew\s+(\w+Client)\s*\(/g)].map((m) => m[1]!).filter((c) => c in CLIENT_MODULES);

  it('functions and shared code create each SDK client only in its module', () => {
    const offenders = runtimeFiles.flatMap((f) =>
      createdClients(readFileSync(f, 'utf8'))
        .filter((c) => CLIENT_MODULES[c] !== relative(ROOT, f))
        .map((c) => `${relative(ROOT, f)} creates ${c}`),
    );
    expect(offenders).toEqual([]);
    for (const [client, module] of Object.entries(CLIENT_MODULES))
      expect(createdClients(readFileSync(join(ROOT, module), 'utf8'))).toContain(client);
  });

  it('no project file computes an AWS signature or imports a signer (the SDK signs)', () => {
    // What computing a signature takes: the scope's terminator, the key derivation's prefix, a signer.
    const signing = /aws4_request|['"]@smithy\/signature-v4['"]|['"]AWS4['"]/;
    const offenders = projectFiles.filter((f) => f !== import.meta.filename && signing.test(readFileSync(f, 'utf8')));
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
    expect(signing.test("const k = createHmac('sha256', 'AWS4' + secret)".replace("'AWS4' + secret", "'AWS4'"))).toBe(
      true,
    );
  });

  it('the runtime dependencies are the SDK clients the design names', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    for (const dep of [
      '@aws-sdk/client-dynamodb',
      '@aws-sdk/lib-dynamodb',
      '@aws-sdk/client-s3',
      '@aws-sdk/s3-request-presigner',
      '@aws-sdk/client-sqs',
      '@aws-sdk/client-lambda',
      '@aws-sdk/client-chime-sdk-voice',
    ]) {
      expect(pkg.dependencies[dep], dep).toMatch(/^\d+\.\d+\.\d+$/);
    }
    expect(pkg.devDependencies['aws-sdk-client-mock']).toBeDefined();
  });
});

describe('house: dependencies one way, nothing generated committed', () => {
  it('no file under shared/ imports infra/ or functions/', () => {
    const offenders = sourceFiles(join(ROOT, 'shared')).flatMap((f) =>
      importsOf(f)
        .filter((s) => s.startsWith('.'))
        .map((s) => relative(ROOT, resolve(dirname(f), s)))
        .filter((target) => target.startsWith('infra/') || target.startsWith('functions/'))
        .map((target) => `${relative(ROOT, f)} imports ${target}`),
    );
    expect(offenders).toEqual([]);
  });

  it("domain and data code throw domain errors (shared/errors.ts), never an HTTP module's values", () => {
    const inner = ['db', 'domain', 'queue', 'llm', 'storage', 'schemas'].flatMap((d) =>
      sourceFiles(join(ROOT, 'shared', d)),
    );
    const offenders = inner.flatMap((f) =>
      [...readFileSync(f, 'utf8').matchAll(/^import (?!type )[^;]*from '([^']*\/http\/(?:errors|logger)\.js)'/gm)].map(
        (m) => `${relative(ROOT, f)} imports ${m[1]}`,
      ),
    );
    expect(offenders).toEqual([]);
  });

  it('outbound HTTP (the network guard and the sender) is one module the agent caller and webhook delivery share', () => {
    const webhookFiles = sourceFiles(join(ROOT, 'shared', 'domain', 'webhooks'));
    const reachingIntoRuns = webhookFiles.filter((f) => importsOf(f).some((s) => s.includes('runs/caller')));
    expect(reachingIntoRuns.map((f) => relative(ROOT, f))).toEqual([]);
    for (const f of ['shared/domain/webhooks/delivery.ts', 'shared/domain/runs/caller/index.ts']) {
      expect(
        importsOf(join(ROOT, f)).some((s) => s.endsWith('outbound/guard.js')),
        f,
      ).toBe(true);
      expect(
        importsOf(join(ROOT, f)).some((s) => s.endsWith('outbound/send.js')),
        f,
      ).toBe(true);
    }
  });

  it('git tracks no generated validator module', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(tracked.length).toBeGreaterThan(100);
    expect(tracked.filter((f) => f.startsWith('.build/') || f.includes('/precompiled/'))).toEqual([]);
    const generated = tracked.filter(
      (f) => /\.ts$/.test(f) && readFileSync(join(ROOT, f), 'utf8').startsWith('// @ts-nocheck\n// Generated by'),
    );
    expect(generated).toEqual([]);
  });
});

describe('architecture: use cases reach the table only through shared/db repositories', () => {
  const domainFiles = sourceFiles(join(ROOT, 'shared', 'domain'));

  it('finds the domain modules', () => {
    expect(domainFiles.length).toBeGreaterThan(20);
  });

  it('no file under shared/domain imports an AWS SDK package', () => {
    const offenders = domainFiles.flatMap((f) =>
      importsOf(f)
        .filter((s) => s.startsWith('@aws-sdk/'))
        .map((s) => `${relative(ROOT, f)} imports ${s}`),
    );
    expect(offenders).toEqual([]);
  });

  it('no file under shared/domain uses the DynamoDB document client directly', () => {
    const offenders = domainFiles.filter((f) =>
      /\bdoc\.send\(|import\s*\{[^}]*\bdoc\b[^}]*\}\s*from\s*['"][^'"]*db\/client\.js['"]/.test(
        readFileSync(f, 'utf8'),
      ),
    );
    expect(offenders.map((f) => relative(ROOT, f))).toEqual([]);
  });

  /**
   * The folders of shared/domain whose table access goes through intents of shared/db (a
   * repository builds every item, key and expression). The run engine (runs/) is covered apart.
   */
  const intentFolders = readdirSync(join(ROOT, 'shared', 'domain'), { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'runs')
    .map((e) => e.name);
  /** What building a DynamoDB request takes: the table, an expression (or a piece of one) or a transaction's item. */
  const buildsRequest =
    /\bTableName\b|\b(?:KeyCondition|Condition|Update|Filter|Projection)Expression\b|\bExpressionAttribute(?:Names|Values)\b|\bTransactItems\b|[{,]\s*(?:Put|Update|Delete|ConditionCheck)\s*:|\bexpression:\s*['"`]|\b(?:attribute_(?:exists|not_exists|type)|if_not_exists|begins_with)\s*\(|from\s*['"][^'"]*db\/client\.js['"]/;

  it('no file under shared/domain (outside runs/) builds a DynamoDB item or expression, or names the table', () => {
    expect(intentFolders).toEqual(expect.arrayContaining(['catalog', 'evaluation', 'monitors', 'sessions', 'tests']));
    const offenders = intentFolders
      .flatMap((d) => sourceFiles(join(ROOT, 'shared', 'domain', d)))
      .filter((f) => buildsRequest.test(readFileSync(f, 'utf8')))
      .map((f) => relative(ROOT, f));
    expect(offenders).toEqual([]);
  });

  it('the request detector sees each form it must catch, and not plain domain code', () => {
    for (const built of [
      '{ Put: { TableName: tableName, Item: item } }',
      '[{ Update: updateItem(entity, org, id, set) }]',
      "{ expression: '#st = :was', names: { '#st': 'status' } }",
      "KeyConditionExpression: 'pk = :pk'",
      "sessionUpdate(id, set, 'attribute_not_exists(closedAt)')",
      "import { tableName } from '../../db/client.js';",
    ])
      expect(buildsRequest.test(built), built).toBe(true);
    expect(buildsRequest.test('await transact([softDeleteWrite(entity, org, id, at)]);')).toBe(false);
    expect(buildsRequest.test("const put = { method: 'PUT', expression: pattern };")).toBe(false);
  });

  it('the import scanner sees the forms it must catch', () => {
    const sample = join(ROOT, 'test', 'unit', 'architecture.test.ts');
    expect(importsOf(sample)).toEqual(expect.arrayContaining(['node:fs', 'node:path', 'vitest']));
  });
});

/**
 * The run engine (shared/domain/runs): its writes are intents that shared/db repositories turn into
 * items, its modules import one another one way, and none is too long to read. A rule of its own
 * (RUN_ENGINE_*), so the same checks can take in the other domain folders beside it.
 */
describe('architecture: the run engine states intents, and its modules point one way', () => {
  const RUN_ENGINE_DIRS = ['shared/domain/runs'];
  const RUN_ENGINE_DB = (f: string) => /^shared\/db\/run[^/]*\.ts$/.test(f);
  const RUN_ENGINE_MAX_LINES = 400;
  const engineFiles = RUN_ENGINE_DIRS.flatMap((d) => sourceFiles(join(ROOT, d)));
  /** What only a repository may write: the table's name, an item operation, an expression. */
  const TABLE_ACCESS =
    /\b(?:TableName|tableName|ConditionExpression|UpdateExpression|KeyConditionExpression|FilterExpression|ProjectionExpression|ExpressionAttributeNames|ExpressionAttributeValues)\b|\{\s*(?:Put|Update|Delete|ConditionCheck)\s*:/;
  const tableAccessIn = (text: string) =>
    text
      .split('\n')
      .filter((line) => !/^\s*(?:\*|\/\/)/.test(line))
      .some((line) => TABLE_ACCESS.test(line));

  it('no module of the run engine names the table, builds an item or an expression, or imports the keys or the client', () => {
    const offenders = engineFiles.flatMap((f) => [
      ...(tableAccessIn(readFileSync(f, 'utf8')) ? [`${relative(ROOT, f)} builds a table item or expression`] : []),
      ...importsOf(f)
        .filter((s) => /\/db\/(?:client|keys)\.js$/.test(s))
        .map((s) => `${relative(ROOT, f)} imports ${s}`),
    ]);
    expect(offenders).toEqual([]);
  });

  it('the table-access check sees an item, an expression and the table name', () => {
    expect(tableAccessIn('const i = { Put: { TableName: tableName, Item: x } };')).toBe(true);
    expect(tableAccessIn("return { UpdateExpression: 'SET #a = :a' };")).toBe(true);
    expect(tableAccessIn('await writeStep({ run, session, seq, set });')).toBe(false);
    expect(tableAccessIn(' * names no TableName in a comment')).toBe(false);
  });

  /** Relative imports between the files a rule covers, resolved to their paths from the root. */
  function graphOf(files: string[]): Map<string, string[]> {
    const covered = new Set(files.map((f) => relative(ROOT, f)));
    return new Map(
      files.map((f) => [
        relative(ROOT, f),
        importsOf(f)
          .filter((s) => s.startsWith('.'))
          .map((s) => relative(ROOT, resolve(dirname(f), s)).replace(/\.js$/, '.ts'))
          .filter((target) => covered.has(target)),
      ]),
    );
  }

  function cyclesOf(graph: Map<string, string[]>): string[] {
    const found: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (node: string, path: string[]) => {
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) {
        if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next].join(' -> '));
        else if (!state.has(next)) visit(next, [...path, next]);
      }
      state.set(node, 'done');
    };
    for (const node of graph.keys()) if (!state.has(node)) visit(node, [node]);
    return found;
  }

  it('no import cycle among the run engine modules, nor among the run repositories', () => {
    const dbFiles = sourceFiles(join(ROOT, 'shared', 'db')).filter((f) => RUN_ENGINE_DB(relative(ROOT, f)));
    expect(dbFiles.length).toBeGreaterThan(1);
    expect(cyclesOf(graphOf([...engineFiles, ...dbFiles]))).toEqual([]);
  });

  it('the cycle finder sees a loop', () => {
    expect(
      cyclesOf(
        new Map([
          ['a', ['b']],
          ['b', ['a']],
          ['c', []],
        ]),
      ),
    ).toEqual(['a -> b -> a']);
  });

  it(`no module of the run engine is over ${RUN_ENGINE_MAX_LINES} lines`, () => {
    const long = engineFiles
      .map((f) => [relative(ROOT, f), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, lines]) => lines > RUN_ENGINE_MAX_LINES)
      .map(([f, lines]) => `${f}: ${lines}`);
    expect(long).toEqual([]);
  });
});

/**
 * The console's types of the API come from the OpenAPI document (console/src/api/schema.d.ts,
 * generated from the route table by `npm run openapi`), never from a copy written by hand: a copy
 * drifts from what the API answers (a field made required, nullable, renamed) without a type error.
 */
describe('architecture: the console types the API with the generated types only', () => {
  /** The generated types, and the helpers of console/src/api/client.ts that index them. */
  const GENERATED = new Set(['components', 'operations', 'paths', 'Schema', 'Answer', 'Body']);
  const HELPERS = ['Schema', 'Answer', 'Body'];
  const CLIENT = 'console/src/api/client.ts';

  interface Declaration {
    file: string;
    name: string;
    /** The aliased type; none for an interface. */
    type?: ts.TypeNode;
  }

  function declarationsOf(file: string, source: ts.SourceFile): Declaration[] {
    const out: Declaration[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isInterfaceDeclaration(node)) out.push({ file, name: node.name.text });
      if (ts.isTypeAliasDeclaration(node)) out.push({ file, name: node.name.text, type: node.type });
      ts.forEachChild(node, visit);
    };
    visit(source);
    return out;
  }

  /** The types an answer is taken as: `narrow<T>(…)` (the `as…` helpers) and `….body as T`. */
  function answerTypesOf(file: string, source: ts.SourceFile): { file: string; type: ts.TypeNode }[] {
    const out: { file: string; type: ts.TypeNode }[] = [];
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'narrow')
        for (const type of node.typeArguments ?? []) out.push({ file, type });
      if (
        ts.isAsExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.name.text === 'body'
      )
        out.push({ file, type: node.type });
      ts.forEachChild(node, visit);
    };
    visit(source);
    return out;
  }

  /** `Schema<'Run'>` or `components['schemas']['Run']`: the generated schema of that name itself. */
  function isAliasOf(type: ts.TypeNode, name: string, source: ts.SourceFile): boolean {
    const text = type.getText(source).replace(/\s+/g, '').replace(/"/g, "'");
    return text === `Schema<'${name}'>` || text === `components['schemas']['${name}']`;
  }

  /**
   * Why each declaration or answer type of the console is not derived from the generated types:
   * a type named like one of the document's schemas that is not that schema, and an answer's type
   * that is not built (Pick, Omit, indexed access, …) from the generated types alone, with no
   * object type of its own written in.
   */
  function offendersIn(files: Record<string, string>, schemaNames: Set<string>): string[] {
    const sources = Object.entries(files).map(
      ([file, text]) => [file, ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)] as const,
    );
    const declarations = sources.flatMap(([file, source]) => declarationsOf(file, source));
    const byName = new Map<string, Declaration[]>();
    for (const d of declarations) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
    const sourceOf = new Map(sources);
    const offenders: string[] = [];

    const derivedName = (name: string, seen: Set<string>): boolean => {
      if (GENERATED.has(name)) return true;
      if (seen.has(name)) return false;
      const found = byName.get(name) ?? [];
      return (
        found.length > 0 && found.every((d) => d.type !== undefined && derivedType(d.type, new Set([...seen, name])))
      );
    };
    /** Built from generated types only: it names one, and writes no object type of its own. */
    const derivedType = (type: ts.TypeNode, seen: Set<string>): boolean => {
      let literal = false;
      const names: string[] = [];
      const visit = (node: ts.Node): void => {
        if (ts.isTypeLiteralNode(node) || ts.isMappedTypeNode(node)) literal = true;
        if (ts.isTypeReferenceNode(node)) {
          let entity = node.typeName;
          while (ts.isQualifiedName(entity)) entity = entity.left;
          names.push(entity.text);
        }
        ts.forEachChild(node, visit);
      };
      visit(type);
      return !literal && names.some((n) => derivedName(n, seen));
    };

    for (const d of declarations) {
      if (HELPERS.includes(d.name) && d.file !== CLIENT) offenders.push(`${d.file}: ${d.name} shadows ${CLIENT}'s`);
      if (!schemaNames.has(d.name)) continue;
      if (d.type === undefined) offenders.push(`${d.file}: interface ${d.name} copies the schema ${d.name}`);
      else if (!isAliasOf(d.type, d.name, sourceOf.get(d.file)!))
        offenders.push(`${d.file}: type ${d.name} is not the schema ${d.name} (Schema<'${d.name}'>)`);
    }
    for (const [file, source] of sources)
      for (const { type } of answerTypesOf(file, source))
        if (!derivedType(type, new Set()))
          offenders.push(`${file}: an answer read as ${type.getText(source)}, not derived from the generated types`);
    return offenders;
  }

  const consoleFiles = Object.fromEntries(
    sourceFiles(join(ROOT, 'console', 'src'))
      .map((f) => relative(ROOT, f))
      .filter((f) => f !== 'console/src/api/schema.d.ts')
      .map((f) => [f, readFileSync(join(ROOT, f), 'utf8')]),
  );
  const document = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8')) as {
    components: { schemas: Record<string, unknown> };
  };
  const schemaNames = new Set(Object.keys(document.components.schemas));

  it("the client's helpers index the generated types", () => {
    const client = consoleFiles[CLIENT]!;
    expect(client).toContain("import type { components, operations, paths } from './schema.js';");
    expect(client).toMatch(
      /export type Schema<N extends keyof components\['schemas'\]> = components\['schemas'\]\[N\];/,
    );
    expect(client).toMatch(/export type Answer<[\s\S]*?> = operations\[Op\]\['responses'\]\[Status\] extends/);
    expect(client).toMatch(
      /export type Body<Op extends keyof operations> =\s*NonNullable<operations\[Op\]\['requestBody'\]>/,
    );
  });

  it('no console type copies an API shape: each is the generated schema, or built from the generated types', () => {
    expect(schemaNames).toContain('Run');
    expect(Object.keys(consoleFiles)).toContain('console/src/view-models.ts');
    expect(offendersIn(consoleFiles, schemaNames)).toEqual([]);
  });

  it('the check sees a copied schema, an overridden field and an answer read as a hand-written shape', () => {
    const names = new Set(['Run', 'Session', 'Span', 'Monitor']);
    const clean = {
      'v.ts': [
        "type Monitor = Schema<'Monitor'>;",
        "type Status = Monitor['status'];",
        "type Named = Pick<Schema<'Run'>, 'id' | 'name'>;",
        "type Alert = Answer<'monitorsAlerts'>[number];",
        "const asMonitor = narrow<Monitor>('monitor', ['id']);",
        "const asNamed = narrow<Named>('named', ['id']);",
        "const asAlert = narrow<Alert>('alert', ['id']);",
        "const u = (await read()).body as Schema<'StorageUpload'>;",
        'interface ResultRow { sessionId: string; status: Status }',
      ].join('\n'),
    };
    expect(offendersIn(clean, names)).toEqual([]);
    expect(
      offendersIn(
        {
          'v.ts': [
            'interface Run { id: string }',
            'type Session = { id: string };',
            "type Span = Omit<Schema<'Span'>, 'type'> & { type: string };",
            "type Wide = Omit<Schema<'Span'>, 'type'> & { type: string };",
            'interface Alert { id: string }',
            "const asWide = narrow<Wide>('span', ['id']);",
            "const asAlert = narrow<Alert>('alert', ['id']);",
            'const u = (await read()).body as { url: string };',
            'interface Answer { data: unknown }',
          ].join('\n'),
        },
        names,
      ),
    ).toEqual([
      'v.ts: interface Run copies the schema Run',
      "v.ts: type Session is not the schema Session (Schema<'Session'>)",
      "v.ts: type Span is not the schema Span (Schema<'Span'>)",
      `v.ts: Answer shadows ${CLIENT}'s`,
      'v.ts: an answer read as Wide, not derived from the generated types',
      'v.ts: an answer read as Alert, not derived from the generated types',
      'v.ts: an answer read as { url: string }, not derived from the generated types',
    ]);
  });
});
