import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { LoginType, useLogin } from '../api/login';
import { useAfterLogin } from './use-after-login';

/** What WeCom appends to the redirect URI; dropped from the address after use. */
const RETURN_PARAMS = ['code', 'state', 'appid'];

/**
 * The return from WeCom (console spec §4): `/login?code=…&state=…` signs in with
 * loginType 3, sending the code as `authToken` with its `state`. A failed
 * attempt (the toast says why) clears the parameters, so the QR tab shows a
 * fresh frame; a code is never tried twice.
 */
export function useWeComReturn() {
  const [params, setParams] = useSearchParams();
  const afterLogin = useAfterLogin();
  const { mutate: login, isPending, isSuccess } = useLogin(afterLogin);
  const code = params.get('code');
  const state = params.get('state') ?? '';
  const tried = useRef<string | null>(null);

  useEffect(() => {
    if (!code || tried.current === code) return;
    tried.current = code;
    login(
      { loginType: LoginType.WorkplaceChat, authToken: code, state },
      {
        onError: () =>
          setParams(
            (p) => {
              RETURN_PARAMS.forEach((k) => p.delete(k));
              return p;
            },
            { replace: true },
          ),
      },
    );
  }, [code, state, login, setParams]);

  return { signingIn: !!code && (isPending || isSuccess || tried.current !== code) };
}
