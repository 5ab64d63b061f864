import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { saveSession, takeExpireAuthPath } from '@/lib/session';
import type { LoginResult } from '../api/login';

/** Detail-link parameters that survive the way through sign-in (console spec §2). */
const KEPT_PARAMS = ['tDeliveryCode', 'fixedLossCode'];

export function keptSearch(params: URLSearchParams): string {
  const kept = new URLSearchParams();
  KEPT_PARAMS.forEach((k) => params.get(k) && kept.set(k, params.get(k) as string));
  return kept.toString();
}

/**
 * Spec §4, once an enterprise session is stored: go to / (keeping detail-link
 * parameters) and open the stored expired-auth path in a new window. When the
 * browser blocks that window (no user gesture, e.g. after the WeCom return) the
 * path opens here instead.
 */
export function useEnterConsole() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  return () => {
    queryClient.clear();
    const expired = takeExpireAuthPath();
    if (expired && !window.open(expired, '_blank')) {
      navigate(expired, { replace: true });
      return;
    }
    navigate({ pathname: '/', search: keptSearch(params) }, { replace: true });
  };
}

/** Stores the session of a sign-in; a personal one goes on to choose its enterprise on /selectNet. */
export function useAfterLogin() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  const enter = useEnterConsole();
  return (result: LoginResult) => {
    const kind = result.sessionKind === 'personal' ? 'personal' : 'enterprise';
    saveSession(result.token, kind);
    if (kind === 'personal') {
      queryClient.clear();
      const search = keptSearch(params);
      navigate({ pathname: '/selectNet', search }, { replace: true });
      return;
    }
    enter();
  };
}
