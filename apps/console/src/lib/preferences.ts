/** Theme colour and sidebar preferences, kept in localStorage. */
import { createContext, useContext } from 'react';

export const THEME_COLORS = ['#1764ff', '#13a8a8', '#52c41a', '#fa8c16', '#eb2f96', '#722ed1'] as const;
export const DEFAULT_THEME_COLOR = THEME_COLORS[0];
const THEME_KEY = 'themeColor';
const SIDEBAR_KEY = 'sidebarStatus';

export function loadThemeColor(): string {
  const stored = localStorage.getItem(THEME_KEY);
  return stored && /^#[0-9a-f]{6}$/i.test(stored) ? stored : DEFAULT_THEME_COLOR;
}

export function saveThemeColor(color: string): void {
  localStorage.setItem(THEME_KEY, color);
}

/** Spec §4: '1' when the sidebar was toggled while open (now closed), else '0'. */
export function loadSidebarOpened(): boolean {
  return localStorage.getItem(SIDEBAR_KEY) !== '1';
}

export function saveSidebarOpened(opened: boolean): void {
  localStorage.setItem(SIDEBAR_KEY, opened ? '0' : '1');
}

export interface Preferences {
  themeColor: string;
  setThemeColor(color: string): void;
}

export const PreferencesContext = createContext<Preferences>({ themeColor: DEFAULT_THEME_COLOR, setThemeColor: () => undefined });

export const usePreferences = () => useContext(PreferencesContext);
