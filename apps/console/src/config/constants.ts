/** Business constants and limits of console spec §9, in one place. */
export const APP_NAME = '车管家';
export const APP_VERSION = 'v1.19.0';

export const REQUEST_TIMEOUT_MS = 60_000;
export const TOAST_SECONDS = 3;
export const LOGOUT_DELAY_MS = 1_500;
export const DIALOG_DEBOUNCE_MS = 1_500;
export const CLICK_DEBOUNCE_MS = 1_000;
export const EYE_TOGGLE_DEBOUNCE_MS = 200;

export const COOKIE_DAYS = 30;
export const DEFAULT_PLATFORM_ID = '1';

export const PAGE_SIZES = [5, 10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 20;
export const FIRST_PAGE = 1;

export const SMS_RESEND_SECONDS = 60;
export const MOBILE_BREAKPOINT_PX = 1024;
/** The top bar's height (`--fd-nav-height` in styles.css): sticky table headers stop below it. */
export const NAV_HEIGHT_PX = 56;
/** The sidebar's width (`--fd-side-width`). */
export const SIDE_WIDTH_PX = 216;
export const MENU_HOVER_DELAY_MS = 600;
export const AVATAR_HOVER_DELAY_MS = 750;
export const WATERMARK_CHECK_MS = 500;
export const TAB_SCROLL_STEP_PX = 5;
export const TAB_SCROLL_INTERVAL_MS = 10;

export const BATCH_MAX = 250;
export const WHOLE_COUNTRY_CODE = '-1';
export const PROVINCE_ROOT_CODE = '100000';

/** Customer-service line, e-mail, chat hours and channel come from the server (`/help/customer-service`). */

export const QR_FRAME = { width: 250, height: 300 } as const;
/** A QR `state` lives 10 minutes; the frame is replaced a little before. */
export const QR_STATE_REFRESH_MS = 9 * 60_000 + 30_000;
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 20;
