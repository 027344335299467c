import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Environment the functions read (table, endpoints), set by the integration global setup. */
    localEnv: Record<string, string>;
    /** The e2e server's base URL and demo key. */
    serverUrl: string;
    demoApiKey: string;
    /** The e2e runtime's DATA_DIR (its local-env.json and demo-api-key). */
    dataDir: string;
    /** The file the e2e server's output goes to, and its process (test/support/e2e-setup.ts). */
    serverLog: string;
    serverPid: number;
    /** A phone number the e2e server's phone line answers with the example voice agent. */
    voiceNumber: string;
    /** Numbers it answers with the example agent talking at length: one that stops when spoken over, one that talks on. */
    bargeInNumbers: { stops: string; talksOn: string };
  }
}
