import { CloseOutlined, LeftOutlined, RightOutlined } from '@ant-design/icons';
import { Dropdown, type MenuProps } from 'antd';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';
import { TAB_SCROLL_INTERVAL_MS, TAB_SCROLL_STEP_PX } from '@/config/constants';
import { HOME_PATH } from '@/config/routes';
import { closeOthers, closeView, nextPathAfterClose, setVisitedViews, type VisitedView } from '@/lib/visited-views';
import { dropCached } from './keep-alive';

/** Scrolls the strip by 5 px every 10 ms while an arrow is held (console spec §2). */
function useScroller() {
  const strip = useRef<HTMLDivElement>(null);
  const timer = useRef<ReturnType<typeof setInterval> | undefined>(undefined);
  const stop = () => clearInterval(timer.current);
  const start = (direction: -1 | 1) => {
    stop();
    timer.current = setInterval(() => {
      if (strip.current) strip.current.scrollLeft += direction * TAB_SCROLL_STEP_PX;
    }, TAB_SCROLL_INTERVAL_MS);
  };
  useEffect(() => stop, []);
  return { strip, start, stop };
}

/** Scrolls `strip` horizontally just enough to show all of `tab`. */
export function revealInStrip(strip: HTMLElement, tab: HTMLElement): void {
  const bar = strip.getBoundingClientRect();
  const box = tab.getBoundingClientRect();
  if (box.left < bar.left) strip.scrollLeft -= bar.left - box.left;
  else if (box.right > bar.right) strip.scrollLeft += Math.min(box.right - bar.right, box.left - bar.left);
}

/** The address shown now. Menu handlers read it at click time: a context menu
 * rendered during a refresh (/redirect/...) must still see the page it returned to. */
const addressNow = () => window.location.pathname + window.location.search;

export function TabBar({ views }: { views: VisitedView[] }) {
  const { t } = useTranslation();
  const location = useLocation();
  const navigate = useNavigate();
  const current = location.pathname + location.search;
  const { strip, start, stop } = useScroller();

  // The active tab scrolls into view, also when it was only just added (views change
  // after navigation), and only the strip scrolls, never the page.
  useEffect(() => {
    const bar = strip.current;
    const tab = bar?.querySelector<HTMLElement>('.is-active');
    if (bar && tab) revealInStrip(bar, tab);
  }, [current, views, strip]);

  const close = (path: string) => {
    const rest = closeView(views, path);
    dropCached(path);
    setVisitedViews(() => rest);
    if (path === addressNow()) navigate(nextPathAfterClose(rest, HOME_PATH));
  };
  const act = (action: string, view: VisitedView) => {
    switch (action) {
      case 'refresh':
        dropCached(view.path);
        navigate(`/redirect${view.path}`, { replace: true });
        break;
      case 'close':
        close(view.path);
        break;
      case 'closeOthers':
        views.filter((v) => v.path !== view.path).forEach((v) => dropCached(v.path));
        setVisitedViews((vs) => closeOthers(vs, view.path));
        if (view.path !== addressNow()) navigate(view.path);
        break;
      case 'closeAll':
        views.forEach((v) => dropCached(v.path));
        setVisitedViews(() => []);
        navigate(HOME_PATH);
        break;
    }
  };
  const menuFor = (view: VisitedView): MenuProps => ({
    items: [
      // Refresh applies to the current view only.
      ...(view.path === current ? [{ key: 'refresh', label: t('tabs.refresh') }] : []),
      { key: 'close', label: t('tabs.close') },
      { key: 'closeOthers', label: t('tabs.closeOthers') },
      { key: 'closeAll', label: t('tabs.closeAll') },
    ],
    onClick: ({ key, domEvent }) => {
      domEvent.stopPropagation();
      act(key, view);
    },
  });

  return (
    <div className="fd-tabs" data-testid="tab-bar">
      <button type="button" className="fd-tabs__arrow" aria-label={t('tabs.scrollLeft')} onMouseDown={() => start(-1)} onMouseUp={stop} onMouseLeave={stop}>
        <LeftOutlined />
      </button>
      <div className="fd-tabs__strip" ref={strip} onWheel={(e) => strip.current && (strip.current.scrollLeft += e.deltaY)}>
        {views.map((view) => (
          <Dropdown key={view.path} trigger={['contextMenu']} menu={menuFor(view)}>
            <div
              role="tab"
              aria-selected={view.path === current}
              tabIndex={0}
              className={`fd-tab${view.path === current ? ' is-active' : ''}`}
              onClick={() => view.path !== current && navigate(view.path)}
              onKeyDown={(e) => e.key === 'Enter' && navigate(view.path)}
              data-path={view.path}
            >
              <span className="fd-tab__dot" />
              <span className="fd-tab__title">{view.title ? t(view.title) : 'no-name'}</span>
              <CloseOutlined
                className="fd-tab__close"
                aria-label={t('tabs.close')}
                onClick={(e) => {
                  e.stopPropagation();
                  close(view.path);
                }}
              />
            </div>
          </Dropdown>
        ))}
      </div>
      <button type="button" className="fd-tabs__arrow" aria-label={t('tabs.scrollRight')} onMouseDown={() => start(1)} onMouseUp={stop} onMouseLeave={stop}>
        <RightOutlined />
      </button>
    </div>
  );
}
