import { useQueryClient } from '@tanstack/react-query';
import { useNavigate, useSearchParams } from 'react-router';
import { saveSession, takeExpireAuthPath } from '@/lib/session';
import type { LoginResult } from '../api/login';

const KEPT_PARAMS = ['tDeliveryCode', 'fixedLossCode'];

/** Spec §4: store the session, go to / (keeping detail-link parameters), reopen an expired-auth path. */
export function useAfterLogin() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params] = useSearchParams();
  return (result: LoginResult) => {
    const kind = result.sessionKind === 'personal' ? 'personal' : 'enterprise';
    saveSession(result.token, kind);
    queryClient.clear();
    if (kind === 'personal') {
      navigate('/selectNet', { replace: true });
      return;
    }
    const expired = takeExpireAuthPath();
    if (expired) window.open(expired, '_blank');
    const kept = new URLSearchParams();
    KEPT_PARAMS.forEach((k) => params.get(k) && kept.set(k, params.get(k) as string));
    navigate({ pathname: '/', search: kept.toString() }, { replace: true });
  };
}
