/**
 * `npm start`: the whole service on this machine. Flags: `--in-memory` (no database or uploads kept).
 * Environment: PORT (3000; 0 = any free port), DATA_DIR (.data), DEMO_API_KEY, DYNAMODB_ENDPOINT,
 * S3_ENDPOINT, SCAN_INTERVAL_SECONDS (10), DYNAMODB_LOCAL_PORT (8000) and S3_LOCAL_PORT (4569)
 * for the emulators it starts (0 = any free port).
 */
import { startLocalRuntime } from './runtime.js';
import { preferredPort } from './services.js';
import { localDataDir, RuntimeAlreadyRunningError } from './state.js';
import { launcherChain, watchLauncher } from './launcher-watch.js';

const args = process.argv.slice(2);
const unknown = args.filter((a) => a !== '--in-memory');
if (unknown.length) {
  console.error(`unknown argument ${unknown[0]}; usage: npm start [-- --in-memory]`);
  process.exit(2);
}
const port = Number(process.env.PORT ?? 3000);
const interval = Number(process.env.SCAN_INTERVAL_SECONDS ?? 10);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`PORT must be a port number, got ${process.env.PORT}`);
  process.exit(2);
}

try {
  const runtime = await startLocalRuntime({
    port,
    // Explicit ports are used as given; the defaults step aside when something else holds them.
    dynamodbPort: process.env.DYNAMODB_LOCAL_PORT ? Number(process.env.DYNAMODB_LOCAL_PORT) : await preferredPort(8000),
    s3Port: process.env.S3_LOCAL_PORT ? Number(process.env.S3_LOCAL_PORT) : await preferredPort(4569),
    inMemory: args.includes('--in-memory'),
    dataDir: localDataDir(),
    demoApiKey: process.env.DEMO_API_KEY || undefined,
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT || undefined,
    s3Endpoint: process.env.S3_ENDPOINT || undefined,
    scanIntervalSeconds: Number.isFinite(interval) ? interval : 10,
  });
  console.log(`Evaluation platform API listening on ${runtime.url} (Node.js ${process.versions.node})`);
  console.log(`Console: ${runtime.url}/ (type the demo API key below)`);
  console.log(`Demo organization: ${runtime.demoOrganizationId} (ENTERPRISE)`);
  console.log(`Demo API key: ${runtime.demoApiKey}`);
  if (runtime.env.AGENT_ALLOW_PRIVATE_NETWORKS === 'true') {
    console.log(
      'Runs may call agents on loopback and private networks (AGENT_ALLOW_PRIVATE_NETWORKS=true; a deployment never allows this)',
    );
  }
  console.log(`Try: curl -s -H "Authorization: Bearer ${runtime.demoApiKey}" ${runtime.url}/organization`);
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    await runtime.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  // A SIGTERM to npm ends its script shell, not this process: stop when the launcher is gone.
  watchLauncher(launcherChain(), () => void stop('npm stopped'));
} catch (error) {
  if (error instanceof RuntimeAlreadyRunningError) console.error(error.message);
  else console.error(`Could not start: ${(error as Error).message}`);
  process.exit(1);
}
