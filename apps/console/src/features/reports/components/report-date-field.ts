/** The report pages' day-range filter: whole Beijing days, required, at most so many days. */
import dayjs, { type Dayjs } from 'dayjs';
import type { FilterField } from '@/components/filter-bar/filter-bar';
import { DATE_FORMAT } from '@/lib/format';

type T = (key: string, options?: Record<string, unknown>) => string;

/** Why a day range is refused ('required', 'tooLong'), or undefined when it is fine (both ends included). */
export function rangeProblem(start: string | undefined, end: string | undefined, maxDays: number): 'required' | 'tooLong' | undefined {
  if (!start || !end) return 'required';
  if (dayjs(end).startOf('day').diff(dayjs(start).startOf('day'), 'day') + 1 > maxDays) return 'tooLong';
  return undefined;
}

/** The `reportDate` field (reportDateStart, reportDateEnd), opening on `initValue`, kept on reset. */
export function reportDateField(t: T, initValue: [string, string], maxDays: number): FilterField {
  return {
    prop: 'reportDate',
    label: t('reports:fields.reportDate'),
    type: 'daterange',
    keys: { start: 'reportDateStart', end: 'reportDateEnd' },
    initValue,
    unReset: true,
    rules: [
      {
        validator: (_: unknown, value: [Dayjs | null, Dayjs | null] | null | undefined) => {
          const problem = rangeProblem(value?.[0]?.format(DATE_FORMAT), value?.[1]?.format(DATE_FORMAT), maxDays);
          if (problem === 'required') return Promise.reject(new Error(t('reports:filter.dateRequired')));
          if (problem === 'tooLong') return Promise.reject(new Error(t('reports:filter.dateTooLong', { days: maxDays })));
          return Promise.resolve();
        },
      },
    ],
  };
}
