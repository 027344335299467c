/**
 * Where the console keeps the API key: this tab's `sessionStorage` by default, or, when the user
 * ticks "remember", this device's `localStorage` too, so a link pasted into a new tab opens
 * without asking again. Forgetting clears both.
 */
export const KEY_ITEM = 'evp.apiKey';

/** The part of the Web Storage API used here (sessionStorage and localStorage both are one). */
export interface KeyStorage {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface KeyStores {
  tab: KeyStorage;
  device: KeyStorage | null;
}

/** The key of this tab, else the one remembered on this device (then kept in the tab too). */
export function readKey(stores: KeyStores): string | null {
  const inTab = stores.tab.getItem(KEY_ITEM);
  if (inTab) return inTab;
  const remembered = stores.device?.getItem(KEY_ITEM) ?? null;
  if (remembered) stores.tab.setItem(KEY_ITEM, remembered);
  return remembered;
}

/** Keeps a key in this tab, and on this device when `remember` (else forgets any remembered one). */
export function saveKey(stores: KeyStores, key: string, remember: boolean): void {
  stores.tab.setItem(KEY_ITEM, key);
  if (remember) stores.device?.setItem(KEY_ITEM, key);
  else stores.device?.removeItem(KEY_ITEM);
}

/** Whether a key is remembered on this device (the form's checkbox starts ticked then). */
export function isRemembered(stores: KeyStores): boolean {
  return Boolean(stores.device?.getItem(KEY_ITEM));
}

/** Forgets the key everywhere (a refused key, or "Change key"). */
export function forgetKey(stores: KeyStores): void {
  stores.tab.removeItem(KEY_ITEM);
  stores.device?.removeItem(KEY_ITEM);
}
