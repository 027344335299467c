import { onSessionClosed, onSessionCreated, onTurnsAdded } from '../monitors/hooks.js';
import type { Session, Turn } from '../../schemas/sessions.js';

/**
 * The seam between runtime records and monitors: called after a session is created, after turns
 * are added, and once when a session closes (explicitly or by the idle scanner). Monitors attach,
 * track and score production sessions from here.
 *
 * A static import: in a function bundle a dynamic `import()` is inlined anyway (one file), and it
 * keeps esbuild from tree-shaking the modules behind it (the whole DynamoDB client with every
 * command's schema, ~50 KiB, came with it).
 */
export const sessionLifecycle = {
  async created(session: Session): Promise<void> {
    await onSessionCreated(session);
  },
  async turnsAdded(session: Session, turns: Turn[]): Promise<void> {
    await onTurnsAdded(session, turns);
  },
  async closed(session: Session): Promise<void> {
    await onSessionClosed(session);
  },
};
