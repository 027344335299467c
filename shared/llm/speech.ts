// Stand-in while the speech client is built on its own branch (the merge takes that one).
export type SpeechResult<T> = ({ ok: true; creditsUsed: number } & T) | { ok: false; error: string; creditsUsed: 0 };
export async function synthesizeSpeech(_input: {
  organizationId: string;
  text: string;
  remainingMs?: number;
}): Promise<SpeechResult<{ wav: Uint8Array }>> {
  return { ok: false, error: 'no speech model is configured', creditsUsed: 0 };
}
export async function transcribeSpeech(_input: {
  organizationId: string;
  wav: Uint8Array;
  language?: string;
  remainingMs?: number;
}): Promise<SpeechResult<{ text: string }>> {
  return { ok: false, error: 'no transcription model is configured', creditsUsed: 0 };
}
