/**
 * This tab's storage: sessionStorage, or memory where the browser refuses it
 * (a share view framed by another site, with third-party storage blocked),
 * so the page still runs; it then forgets on reload.
 */
const memory = new Map<string, string>();

function session(): Storage | null {
  try {
    return window.sessionStorage;
  } catch {
    return null;
  }
}

export const tabStorage = {
  getItem: (key: string): string | null => session()?.getItem(key) ?? memory.get(key) ?? null,
  setItem: (key: string, value: string): void => {
    const s = session();
    if (s) s.setItem(key, value);
    else memory.set(key, value);
  },
  removeItem: (key: string): void => {
    session()?.removeItem(key);
    memory.delete(key);
  },
};
