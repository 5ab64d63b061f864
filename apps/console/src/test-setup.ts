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

// antd's CSS-in-JS styles stay in the document (antd finds them by their
// attributes) but out of jsdom's cascade. With them, every getComputedStyle
// matched about 2,000 rules in 100-160 ms, and role queries call it for each
// node whose name they compute: 82 % of the slowest file's time. What a test sees
// as hidden is what the DOM says (inline styles, `hidden`, our own state), not
// antd's stylesheet, which only the browser tests load.
{
  const ANTD_STYLE = ['data-css-hash', 'data-rc-order', 'data-token-hash'];
  const inert = <T extends Node>(node: T): T => {
    if (node instanceof HTMLStyleElement && ANTD_STYLE.some((a) => node.hasAttribute(a))) node.type = 'text/x-antd-inert';
    return node;
  };
  const append = Node.prototype.appendChild;
  const insert = Node.prototype.insertBefore;
  Node.prototype.appendChild = function <T extends Node>(this: Node, node: T): T {
    return append.call(this, inert(node)) as T;
  };
  Node.prototype.insertBefore = function <T extends Node>(this: Node, node: T, child: Node | null): T {
    return insert.call(this, inert(node), child) as T;
  };
}
