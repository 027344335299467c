import type { Session, Turn } from '../../schemas/sessions.js';

/** Monitor reactions to the session lifecycle (attachment, waiting, closing). */
export async function onSessionCreated(_session: Session): Promise<void> {}
export async function onTurnsAdded(_session: Session, _turns: Turn[]): Promise<void> {}
export async function onSessionClosed(_session: Session): Promise<void> {}
