/** Captured client errors for the error-log dialog (console spec §2/§3: message, stack, component info, url). */
import { useSyncExternalStore } from 'react';

export interface ErrorLogEntry {
  message: string;
  stack?: string;
  info?: string;
  url: string;
  time: number;
}

const MAX_ENTRIES = 50;
let entries: ErrorLogEntry[] = [];
const listeners = new Set<() => void>();

export function addErrorLog(error: unknown, info?: string): void {
  const err = error instanceof Error ? error : new Error(String(error));
  entries = [{ message: err.message, stack: err.stack, info, url: window.location.href, time: Date.now() }, ...entries].slice(0, MAX_ENTRIES);
  listeners.forEach((l) => l());
}

export function clearErrorLog(): void {
  entries = [];
  listeners.forEach((l) => l());
}

export function useErrorLog(): ErrorLogEntry[] {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => entries,
  );
}

/** Uncaught errors and unhandled rejections go to the log. */
export function installErrorCapture(): void {
  window.addEventListener('error', (e) => addErrorLog(e.error ?? e.message));
  window.addEventListener('unhandledrejection', (e) => addErrorLog(e.reason));
}
