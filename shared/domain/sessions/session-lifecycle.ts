import type { Session, Turn } from '../../schemas/sessions.js';

/**
 * The seam between runtime records and monitors: called after a session is created, after turns
 * are added, and once when a session closes (explicitly or by the idle scanner). Monitors attach,
 * track and score production sessions from here.
 */
export const sessionLifecycle = {
  async created(session: Session): Promise<void> {
    await (await monitorHooks()).onSessionCreated(session);
  },
  async turnsAdded(session: Session, turns: Turn[]): Promise<void> {
    await (await monitorHooks()).onTurnsAdded(session, turns);
  },
  async closed(session: Session): Promise<void> {
    await (await monitorHooks()).onSessionClosed(session);
  },
};

interface MonitorHooks {
  onSessionCreated(session: Session): Promise<void>;
  onTurnsAdded(session: Session, turns: Turn[]): Promise<void>;
  onSessionClosed(session: Session): Promise<void>;
}

// Loaded lazily so functions that never touch monitors do not load the monitor engine.
let hooks: Promise<MonitorHooks> | undefined;
function monitorHooks(): Promise<MonitorHooks> {
  hooks ??= import('../monitors/hooks.js');
  return hooks;
}
