import '@testing-library/jest-dom/vitest';
import { afterEach, beforeAll } from 'vitest';
import { cleanup, configure } from '@testing-library/react';
import { initI18n } from '@/lib/i18n';

// findBy…/waitFor wait up to 5 s (default 1 s): on two busy cores a page's first
// render can take longer than a second, and a wait that gives up early is no test.
configure({ asyncUtilTimeout: 5_000 });

// antd reads matchMedia; jsdom has none.
if (!window.matchMedia) {
  Object.defineProperty(window, 'matchMedia', {
    writable: true,
    value: (query: string) => ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }),
  });
}

// antd's virtual lists and the filter bar observe sizes; jsdom has no layout.
if (!('ResizeObserver' in window)) {
  class ResizeObserverStub {
    observe = () => undefined;
    unobserve = () => undefined;
    disconnect = () => undefined;
  }
  Object.defineProperty(window, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
  Object.defineProperty(globalThis, 'ResizeObserver', { writable: true, value: ResizeObserverStub });
}

beforeAll(async () => {
  localStorage.setItem('language', 'zh-CN');
  await initI18n('zh-CN');
});

afterEach(() => cleanup());
