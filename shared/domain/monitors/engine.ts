/** The monitor engine: evaluation jobs of monitors (filled by the monitor work). */
export async function processMonitorJob(_monitorId: string, _sessionId: string): Promise<void> {}
