/**
 * The API reference, served without a key: `GET /openapi.json` (the committed
 * docs/openapi.json) and `GET /docs`, a Swagger UI page whose assets are served from this API too
 * (`/docs/<asset>`): no CDN at run time. The local gateway and the CDK docs function
 * (functions/docs/serve.ts) answer with this one function; only where the files live differs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the served files are: the document, and a folder holding swagger-ui-dist's assets. */
export interface ApiDocsFiles {
  document: string;
  assets: string;
}

/** The swagger-ui-dist files the page loads, by the name they are served under, with their type. */
export const DOCS_ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};
/** The page's own script: it loads the document and starts Swagger UI (no inline script). */
const INIT_SCRIPT = 'docs-init.js';

/** The API paths of the reference, for the route tables of the gateway (local and CDK). */
export const DOCS_PATHS = { document: '/openapi.json', page: '/docs', asset: '/docs/{asset}' } as const;

export interface DocsAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

// Relative URLs: the page works under any base path (`/v1/docs` on API Gateway, `/api/docs` behind
// CloudFront, `/docs` locally): `docs/x` from `…/docs` is `…/docs/x`, `openapi.json` is its sibling.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Evaluation platform API reference</title>
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/${INIT_SCRIPT}"></script>
</body>
</html>
`;

// The server is where the page is: the document's paths follow the page's base path.
const INIT = `(async () => {
  const base = new URL('.', window.location.href).href.replace(/\\/$/, '');
  const spec = await (await fetch(base + '/openapi.json')).json();
  spec.servers = [{ url: base, description: 'this deployment' }];
  window.ui = SwaggerUIBundle({ spec, dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: false });
})();
`;

const SECURITY_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // Everything comes from this origin; Swagger UI sets inline styles and draws data: images.
  'Content-Security-Policy':
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
};

const cache = new Map<string, string>();
const read = (file: string): string => {
  let text = cache.get(file);
  if (text === undefined) cache.set(file, (text = readFileSync(file, 'utf8')));
  return text;
};

const answer = (body: string, contentType: string, cacheControl = 'public, max-age=300'): DocsAnswer => ({
  statusCode: 200,
  headers: { 'Content-Type': contentType, 'Cache-Control': cacheControl, ...SECURITY_HEADERS },
  body,
});

/**
 * The answer to `GET <path>` when the path is part of the reference, else undefined (the caller
 * goes on to its API routes). Only GET is answered; other methods fall through to the caller's 404.
 */
export function apiDocsAnswer(method: string, path: string, files: ApiDocsFiles): DocsAnswer | undefined {
  if (method.toUpperCase() !== 'GET') return undefined;
  if (path === DOCS_PATHS.document) return answer(read(files.document), 'application/json; charset=utf-8', 'no-cache');
  if (path === DOCS_PATHS.page) return answer(PAGE, 'text/html; charset=utf-8', 'no-cache');
  // With the slash the page's relative URLs would miss: to the page, relative so any base path works.
  if (path === `${DOCS_PATHS.page}/`)
    return { statusCode: 308, headers: { Location: '../docs', ...SECURITY_HEADERS }, body: '' };
  const asset = path.startsWith('/docs/') ? path.slice('/docs/'.length) : undefined;
  if (asset === INIT_SCRIPT) return answer(INIT, 'text/javascript; charset=utf-8');
  const type = asset !== undefined && Object.hasOwn(DOCS_ASSETS, asset) ? DOCS_ASSETS[asset] : undefined;
  return type ? answer(read(join(files.assets, asset!)), type) : undefined;
}
