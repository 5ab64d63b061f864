/**
 * Customer service (console spec §1, §9): hotline, e-mail, chat hours and chat channel
 * from one server source (`GET /help/customer-service`), shared by the shell's
 * float and the online customer page so both always say the same.
 */
import { useQuery } from '@tanstack/react-query';
import { api, type ApiData } from './api-client';

export type CustomerService = ApiData<'/api/v1/help/customer-service', 'get'>;

export const CUSTOMER_SERVICE_KEY = ['help', 'customer-service'] as const;

/** Chat opens and closes on the clock: look again every few minutes. */
const REFRESH_MS = 5 * 60_000;

export function useCustomerService() {
  return useQuery({
    queryKey: CUSTOMER_SERVICE_KEY,
    queryFn: () => api.get('/api/v1/help/customer-service', { silent: true }),
    staleTime: REFRESH_MS,
    refetchInterval: REFRESH_MS,
  });
}

/** The calendar day (Asia/Shanghai, where the desk works) of a moment, yyyy-mm-dd. */
function shanghaiDay(at: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Shanghai', year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
}

/**
 * When closed chat opens next, as an i18n key and its time (HH:mm, China
 * time): today, tomorrow, or a date. Undefined while chat is open or the
 * server gave no time.
 */
export function opensAt(service: Pick<CustomerService, 'chatAvailable' | 'nextOpenTime'>, now = new Date()): { key: string; time: string; date: string } | undefined {
  if (service.chatAvailable || !service.nextOpenTime) return undefined;
  const at = new Date(service.nextOpenTime);
  if (Number.isNaN(at.getTime())) return undefined;
  const time = new Intl.DateTimeFormat('en-GB', { timeZone: 'Asia/Shanghai', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
  const date = shanghaiDay(at);
  const today = shanghaiDay(now);
  const tomorrow = shanghaiDay(new Date(now.getTime() + 24 * 3600_000));
  const key = date === today ? 'customer.opensToday' : date === tomorrow ? 'customer.opensTomorrow' : 'customer.opensOn';
  return { key, time, date };
}
