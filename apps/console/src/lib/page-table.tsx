/**
 * How a feature binds its pages to routes: a table from route name
 * (`config/routes.ts`) to the loader of the page's module. The router turns
 * every table into pages in one place (`app/domain-page.tsx`); a route of the
 * feature without an entry shows 即将上线.
 */
import { lazy, Suspense, type ComponentType, type ReactNode } from 'react';
import { PageLoading } from '@/components/page-loading';

/** A page's module: its default export renders the page. */
export interface PageModule {
  default: ComponentType;
}

/** Loads a page's module, as its own chunk. */
export type PageLoader = () => Promise<PageModule>;

/** A feature's pages by route name. */
export type PageTable = Readonly<Record<string, PageLoader>>;

/** The page of `load` opened with fixed props (a hidden add route opens its list with the add dialog). */
export function withProps<P extends object>(load: () => Promise<{ default: ComponentType<P> }>, props: P): PageLoader {
  return () =>
    load().then(({ default: Page }) => ({
      default: function PageWithProps() {
        return <Page {...props} />;
      },
    }));
}

/**
 * The page of `load` behind `Gate`: the gate shows at once, and the page's
 * chunk loads only once the gate lets it through.
 */
export function behind(Gate: ComponentType<{ children: ReactNode }>, load: PageLoader): PageLoader {
  const Page = lazy(load);
  const gated: PageModule = {
    default: function GatedPage() {
      return (
        <Gate>
          <Suspense fallback={<PageLoading />}>
            <Page />
          </Suspense>
        </Gate>
      );
    },
  };
  return () => Promise.resolve(gated);
}
